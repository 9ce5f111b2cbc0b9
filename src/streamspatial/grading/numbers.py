"""Reading a count or a measurement out of a model's text (the paper scorers' number reader).

VCBench §4.1 says only that outputs are post-processed "to extract numbers (supporting Arabic
numerals and English number words)"; S3-Bench and VSI-Bench score numbers with MRA.  Which
number, when a response holds several, is our choice, documented in :func:`extract_number`.
(The official scorers read numbers their own way: each benchmark's ``bench/<name>/official.py``.)

Numerals are read as people and Python write them: ``1,234``, ``1_000``, ``3.5``, ``-3``,
``1e3`` and ``2.5E-2``; a dash between two numbers is a range ("3-4"), not a minus sign; digits
glued to letters ("H2O", "v1.5") are no numbers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from streamspatial.grading.thinking import strip_thinking

__all__ = ["asks_for_several_numbers", "extract_number"]

_UNIT_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
)
_UNITS = {w: i for i, w in enumerate(re.findall(r"\w+", _UNIT_WORDS))}
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_TENS = {w: 10 * i for i, w in enumerate(re.findall(r"\w+", _TENS_WORDS), 2)}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_WORD_TOKEN = re.compile(r"[A-Za-z]+")
# sign, integer part (1,234 groups or 1_000 groups as Python writes them), fraction, exponent.
_NUMERAL = re.compile(
    r"(-?)(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:_\d+)*)(\.\d+)?(?:[eE]([+-]?\d+)(?![A-Za-z]))?"
)
# A marker the answer follows: "answer:", "final answer is", "total =", "count:", and the
# conclusions "so", "therefore", "thus", "hence", "in total", "altogether".
_ANSWER_MARK = re.compile(
    r"(?i:\b(?:final\s+answer|answer|final|count|total))(?>[\s\*]*+)(?:[:：=]|(?i:is)\b)"
    r"|(?i:\b(?:so|therefore|thus|hence|in\s+total|altogether|in\s+all)\b)"
)
# A total named after its number: "5 in total", "5 chairs altogether".
_TRAILING_TOTAL = re.compile(
    r"\s*(?:[A-Za-z]+\s+){0,2}?(?i:in\s+total|altogether|in\s+all|total|overall|combined)\b"
)
# A question asking for more than one number: "… respectively", "… in each room",
# "how many chairs and how many tables".
_SEVERAL = re.compile(
    r"(?i:\brespectively\b|\beach\b|\bper\b|\bhow\s+many\b.*\bhow\s+many\b)", re.S
)
_COUNTED = re.compile(r"(?i:\bhow\s+many\s+((?:[A-Za-z-]+\s+){0,2}[A-Za-z-]+))")
_STOP = frozenset(
    re.findall(
        r"\w+",
        "are is was were do does did have has had can could will would should in on at of to "
        "the a an there you i we they visible",
    )
)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    value: float


def _numerals(text: str) -> list[_Found]:
    found = []
    for m in _NUMERAL.finditer(text):
        sign, digits, frac, exponent = m.group(1), m.group(2), m.group(3) or "", m.group(4)
        start = m.start()
        if sign and start > 0 and text[start - 1].isalnum():
            sign, start = "", start + 1  # "3-4" is a range, not minus four
        before = text[start - 1] if start > 0 else ""
        if before.isalpha() or before == ".":
            continue  # "H2O", "v1.5", ".5" fragments are not counts
        mantissa = digits.replace(",", "").replace("_", "") + frac
        value = float(mantissa + (f"e{exponent}" if exponent else ""))
        if not math.isfinite(value):
            continue
        found.append(_Found(start, m.end(), -value if sign else value))
    return found


def _number_words(text: str) -> list[_Found]:
    """Parse runs like "three hundred and five", "twenty-one", "a dozen" into numbers.

    A run breaks when two unit words meet without a scale ("two three" is two numbers), so
    lists of counts are not summed.
    """
    tokens = [(m.start(), m.end(), m.group().lower()) for m in _WORD_TOKEN.finditer(text)]
    found: list[_Found] = []
    i = 0
    while i < len(tokens):
        start, _, word = tokens[i]
        is_article = word in ("a", "an") and i + 1 < len(tokens)
        is_article = is_article and tokens[i + 1][2] in ("hundred", "thousand", "dozen")
        if not (word in _UNITS or word in _TENS or word == "dozen" or is_article):
            i += 1
            continue
        total, current, last_kind, end = 0, 0, "", tokens[i][1]
        j = i
        while j < len(tokens):
            s, e, w = tokens[j]
            if j > i and not re.fullmatch(r"[ \t\-]*", text[tokens[j - 1][1] : s]):
                break  # only spaces and hyphens join the words of one number
            if w == "and":
                nxt = tokens[j + 1][2] if j + 1 < len(tokens) else ""
                if last_kind != "scale" or not (nxt in _UNITS or nxt in _TENS):
                    break
                j += 1  # "three hundred and five": "and" joins, it adds nothing
                continue
            if w in ("a", "an") and j == i:
                current, last_kind = 1, "article"
            elif w in _UNITS:
                if last_kind in ("unit", "teen", "article"):
                    break
                value = _UNITS[w]
                current += value
                last_kind = "teen" if value >= 10 else "unit"
            elif w in _TENS:
                if last_kind in ("unit", "teen", "tens", "article"):
                    break
                current += _TENS[w]
                last_kind = "tens"
            elif w == "dozen":
                current = max(current, 1) * 12
                last_kind = "unit"
            elif w in _SCALES and last_kind:
                if w == "hundred":
                    current = max(current, 1) * 100
                else:
                    total += max(current, 1) * _SCALES[w]
                    current = 0
                last_kind = "scale"
            else:
                break
            end = e
            j += 1
        found.append(_Found(start, end, float(total + current)))
        i = max(j, i + 1)
    return found


def _all_numbers(text: str) -> list[_Found]:
    return sorted(_numerals(text) + _number_words(text), key=lambda f: f.start)


def asks_for_several_numbers(question: str) -> bool:
    """True for a question whose answer is more than one number ("… respectively", "how many
    chairs are in each room", "how many chairs and how many tables")."""
    return bool(_SEVERAL.search(question))


def _stem(word: str) -> str:
    word = word.lower()
    for suffix in ("es", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            return word[: -len(suffix)]
    return word


def _counted_nouns(question: str) -> set[str]:
    """The words naming what a "how many …" question counts ("how many red chairs" → red,
    chair), stemmed; empty when the question does not say."""
    m = _COUNTED.search(question)
    if m is None:
        return set()
    words = []
    for w in m.group(1).split():
        if w.lower() in _STOP:
            break
        words.append(_stem(w))
    return set(words)


_FOLLOWING = re.compile(r"[ \t]*([A-Za-z-]+)(?:[ \t]+([A-Za-z-]+))?")


def _names_counted(body: str, number: _Found, nouns: set[str]) -> bool:
    """Whether the one or two words right after ``number`` name the counted thing."""
    m = _FOLLOWING.match(body, number.end)
    return m is not None and any(w and _stem(w) in nouns for w in m.groups())


def extract_number(text: str, question: str | None = None) -> float | None:
    """The numeric answer, or None (VCBench marks extraction failures invalid).

    In order, on the response with its reasoning trace removed:

    1. no number: None; one number: it.
    2. an answer marker ("answer:", "final answer is", "total =", "so", "therefore", "in
       total", …): the first number after the last marker — "I see 2 chairs and 3 stools,
       so 5" gives 5; a total named after its number ("3 red and 2 blue, 5 in total") gives
       that number.
    3. several numbers and no marker: a question asking for several numbers ("…
       respectively", "in each room") makes the answer ambiguous: None.  Otherwise the
       question asks for one number, and the response's first number is its answer ("12
       chairs, 3 tables" gives 12), unless exactly one number names what a "how many …"
       question counts ("How many tables?" — "12 chairs, 3 tables" gives 3).  Without a
       question the first number is taken.
    """
    body, _ = strip_thinking(text)
    numbers = _all_numbers(body)
    if not numbers:
        return None
    if len(numbers) == 1:
        return numbers[0].value
    marks = list(_ANSWER_MARK.finditer(body))
    if marks:
        after = [n for n in numbers if n.start >= marks[-1].end()]
        if after:
            return after[0].value
    totals = [n for n in numbers if _TRAILING_TOTAL.match(body, n.end)]
    if totals:
        return totals[-1].value
    if question is not None:
        if asks_for_several_numbers(question):
            return None
        nouns = _counted_nouns(question)
        named = [n for n in numbers if nouns and _names_counted(body, n, nouns)]
        if len(named) == 1:
            return named[0].value
    return numbers[0].value
