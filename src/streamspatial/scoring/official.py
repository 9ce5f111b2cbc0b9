"""The official scorers' answer readers, rule by rule, each citing the code it reproduces.

A leaderboard number is whatever the benchmark's own scoring script made of a model's text, so
``--scorer official`` reads answers exactly as those scripts do, quirks included (the papers'
formulas, ``--scorer paper``, live in :mod:`streamspatial.grading.extract`).  Where a script
would crash on an answer, the answer is recorded as invalid instead and counted.

Sources (file paths inside each repository):

* OVO-S-Bench — ``InternLM/OVO-S-Bench``: ``score.py`` ``extract_answer`` / ``check_answer``.
* VCBench — ``buaa-colalab/VCBench``: ``eval/demo_gemini.py`` (``raw_text.strip()``) and
  ``eval/unify_results.py`` (``int(pred)``, None on failure).
* UCS-Bench — ``cocowy1/UCS-Bench``: ``directme/eval/eval_ucsbench.py``
  ``parse_option_from_answer`` (its JSON-array files) and ``directme/qa/prompts.py``
  ``MultipleChoicePromptBuilder.parse_answer`` (used by ``examples/evaluate_ucsbench_vlm.py``
  on its JSONL files).
"""

from __future__ import annotations

import re

__all__ = [
    "ovos_letter",
    "ucs_array_letter",
    "ucs_jsonl_letter",
    "vcbench_int",
]

# --------------------------------------------------------------------------------------------
# OVO-S-Bench score.py: extract_answer

OVOS_TAIL_CHARS = 300  # tail = response[-300:]
# The cascade after the </think> split, in order; (pattern, where, how).  "tail" steps search
# the last 300 characters, "all" steps the whole post-think response; every step but the
# start-of-response one takes the FIRST match (re.search), case-insensitively, letters A–E only.
_OVOS_STEPS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?:answer|final\s+answer|final)[:\s]+([A-E])\b", re.IGNORECASE), "tail"),
    (re.compile(r"<answer>\s*([A-E])\b", re.IGNORECASE), "tail"),
    (re.compile(r"\b([A-E])\b\s*\.?\s*$", re.IGNORECASE), "tail"),
    (re.compile(r"<\|begin_of_box\|>\s*([A-E])", re.IGNORECASE), "tail"),
    (re.compile(r"^([A-E])\b"), "upper-start"),
    (re.compile(r"(?:answer|choice|option)s?[:\s]+([A-E])\b", re.IGNORECASE), "all"),
    (re.compile(r"[\(\[]\s*([A-E])\s*[\)\]]", re.IGNORECASE), "all"),
)


def ovos_letter(response: str | None) -> str:
    """The letter ``score.py`` extracts, upper case, or ``""`` when it finds none.

    Rules, in the script's order: strip; keep only the text after the last ``</think>``
    (case-sensitive split; an unclosed ``<think>`` is *not* removed); then, on the last 300
    characters: ``answer|final answer|final`` + ``[:\\s]+`` + letter; ``<answer>`` + letter; a
    bare letter at the very end (optionally a full stop); ``<|begin_of_box|>`` + letter; then a
    letter at the start of the upper-cased response (so "a chair…" reads as A); then anywhere:
    ``answer|choice|option(s)`` + ``[:\\s]+`` + letter; a letter in parentheses or brackets.
    Only A–E exist: an answer F or G (OVO-S Revisit Counting has up to seven options) is "".
    """
    if not response:
        return ""
    text = response.strip()
    if "</think>" in text:
        text = text.split("</think>")[-1].strip()
    tail = text[-OVOS_TAIL_CHARS:]
    for pattern, where in _OVOS_STEPS:
        if where == "upper-start":
            m = pattern.match(text.upper())
        else:
            m = pattern.search(tail if where == "tail" else text)
        if m:
            return m.group(1).upper()
    return ""


# --------------------------------------------------------------------------------------------
# VCBench demo_gemini.py + unify_results.py


def vcbench_int(response: str | None) -> int | None:
    """``int(raw_text.strip())``, None where it raises or the response is empty.

    Python's ``int`` is the rule, so " 12 ", "+3", "-2" and "1_000" parse while "12.0", "1e3",
    "12 chairs" and "twelve" do not.  The official ``compute_metrics.py`` would then crash on
    the None; streamspatial records it as an invalid answer and reports the invalid rate.
    """
    prediction = response.strip() if response else None
    if prediction is None:
        return None
    try:
        return int(prediction)
    except (ValueError, TypeError):
        return None


# --------------------------------------------------------------------------------------------
# UCS-Bench

_UCS_ARRAY_STEPS = (
    re.compile(r"\b(?:Answer|answer)\s*[:：]?\s*([A-E])\b"),
    re.compile(r"\b([A-E])\b"),
    re.compile(r"\(([A-E])\)"),
)


def ucs_array_letter(response: str | None) -> str:
    """``eval_ucsbench.py`` ``parse_option_from_answer``: ``""`` when nothing matches.

    Case-sensitive: "Answer"/"answer" + optional colon + letter, else the FIRST standalone
    capital A–E anywhere (so "A chair" is A and "I think B" is B), else "(X)".
    """
    text = (response or "").strip()
    for pattern in _UCS_ARRAY_STEPS:
        m = pattern.search(text)
        if m:
            return m.group(1).upper()
    return ""


_UCS_JSONL_LABELS = "ABCDE"  # MultipleChoicePromptBuilder.parse_answer's default
_UCS_PHRASE = re.compile(r"(?:ANSWER\s*(?:IS|:)|CHOOSE|SELECT|PICK|CHOSE)\s*([A-E])\b")
_UCS_CHINESE = re.compile(r"(?:答案\s*(?:是|为|:)?|选择?)\s*([A-E])\b")
_UCS_BRACKET = re.compile(r"[\[\(]([A-E])[\]\)]")
_UCS_LINE_START = re.compile(r"^([A-E])\b", re.MULTILINE)


def ucs_jsonl_letter(response: str | None) -> str | None:
    """``MultipleChoicePromptBuilder.parse_answer(response)``: None when nothing matches.

    On the stripped, upper-cased text: a single letter; a letter followed by ``.):,`` or a
    space at the very start; "ANSWER IS/ANSWER:/CHOOSE/SELECT/PICK/CHOSE" + letter; the
    Chinese "答案是 / 选" + letter (original case); "(X)" / "[X]"; a letter starting a line.
    """
    text = (response or "").strip()
    upper = text.upper()
    valid = set(_UCS_JSONL_LABELS)
    if not text:
        return None
    if len(upper) == 1 and upper in valid:
        return upper
    if len(upper) >= 2 and upper[0] in valid and upper[1] in ".):, ":
        return upper[0]
    for pattern, haystack in (
        (_UCS_PHRASE, upper),
        (_UCS_CHINESE, text),
        (_UCS_BRACKET, upper),
        (_UCS_LINE_START, upper),
    ):
        m = pattern.search(haystack)
        if m and m.group(1).upper() in valid:
            return m.group(1).upper()
    return None
