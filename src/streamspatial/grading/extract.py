"""Turning a model's raw text into an answer: a letter, a number or an exploration action.

Extraction is deterministic and regex-only, as every seed paper requires: an LLM judge would
bring back the very grounding errors the benchmarks measure.  Three extractors share one first
step, :func:`strip_thinking`, so reasoning inside ``<think>…</think>`` never supplies an answer.

* :func:`extract_choice` is the tail-first 7-step cascade of OVO-S-Bench Appendix G.7.
* :func:`extract_number` reads Arabic numerals and English number words (VCBench §4.1); it
  lives in :mod:`streamspatial.grading.numbers`.
* :func:`extract_action` reads the JSON exploration command of S3-Bench §4.3.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from streamspatial.core.schema import LETTERS
from streamspatial.grading.numbers import extract_number
from streamspatial.grading.thinking import strip_thinking

__all__ = [
    "ChoiceExtraction",
    "extract_action",
    "extract_choice",
    "extract_choice_detailed",
    "extract_number",
    "leading_letter",
    "normalise_action",
    "strip_thinking",
    "yes_no",
]

TAIL_CHARS = 300  # G.7 steps 1–4 look only at the last 300 characters

# --------------------------------------------------------------------------------------------
# Multiple choice: OVO-S-Bench G.7


@dataclass(frozen=True)
class ChoiceExtraction:
    """What the cascade found: the letter, the 1-based step that matched, and truncation."""

    letter: str | None
    step: int | None
    truncated: bool


def _letter_class(letters: str) -> str:
    if not letters or not all(c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" for c in letters):
        raise ValueError(f"expected option letters among A–Z, got {letters!r}")
    return "[" + "".join(sorted(set(letters))) + "]"


def _compile_steps(letters: str) -> list[tuple[re.Pattern[str], bool, bool]]:
    """The seven patterns as ``(pattern, tail_only, last_match)``; letters are case-sensitive.

    Letters must be upper case everywhere: "the answer is a chair" must not read as A.
    A letter must end at a word boundary, so "Answer: Bedroom" is not B.
    """
    L = _letter_class(letters)
    # Every run of separators is possessive or atomic: a response that is 5,000 spaces after
    # "answer" must cost linear time, not the cubic backtracking of adjacent ``\s*`` runs.
    opener = r"[\s\*\(\[\"'`]*+"  # markdown bold, brackets or quotes before the letter
    end = r"(?![A-Za-z0-9])"
    is_ = r"(?i:is)\b"
    tail_sep = rf"(?>[\s\*]*+(?:{is_}[\s\*]*+)?[:：=\-]?)"  # step 1: ":", "is", or nothing
    true_sep = rf"(?>[\s\*]*+(?:{is_}[\s\*]*+)?[:：=]|\s++{is_})"  # step 6: ":", "=", "is"
    steps = [
        # 1. tail "Answer: X", "Final answer is X", "Final: X"
        (rf"(?i:\b(?:final\s+answer|answer|final)){tail_sep}{opener}({L}){end}", True, True),
        # 2. Cosmos-style <answer> X
        (rf"(?i:<answer>){opener}({L}){end}", True, True),
        # 3. a bare single letter at the very end: "…therefore B", "B.", "(B)"
        (rf"(?<![A-Za-z0-9]){opener}({L})[\s\.\)\]\*\"'`!]*+$", True, True),
        # 4. GLM-style <|begin_of_box|> X
        (rf"<\|begin_of_box\|>{opener}({L}){end}", True, True),
        # 5. a single letter at the start: "B", "B. kitchen", "C is correct" — but "A" followed
        #    by a lower-case word is the article ("A chair is…") unless that word is is/was
        (rf"^{opener}(?!A\s+(?!(?:is|was)\b)[a-z])({L}){end}", False, False),
        # 6. anywhere: answer / choice / option(s) with a true separator (":", "=", "is")
        (rf"(?i:\b(?:answer|choice|options?)){true_sep}{opener}({L}){end}", False, True),
        # 7. anywhere: a parenthesised or bracketed letter "(B)" / "[C]"
        (rf"[\(\[]\s*+({L})\s*+[\)\]]", False, True),
    ]
    return [(re.compile(p), tail, last) for p, tail, last in steps]


_STEP_CACHE: dict[str, list[tuple[re.Pattern[str], bool, bool]]] = {}


def _steps(letters: str) -> list[tuple[re.Pattern[str], bool, bool]]:
    if letters not in _STEP_CACHE:
        _STEP_CACHE[letters] = _compile_steps(letters)
    return _STEP_CACHE[letters]


def extract_choice_detailed(text: str, letters: str = LETTERS) -> ChoiceExtraction:
    """Run the G.7 cascade and say which step matched (for failure diagnostics).

    Within a step the *last* occurrence wins (the conclusion comes after the reasoning); across
    steps the first step that matches wins.  ``letters`` is the item's option range: the
    default is A–G because OVO-S Revisit Counting has seven options (the official scorer's A–E
    range silently scores F and G answers as wrong).
    """
    body, truncated = strip_thinking(text)
    tail = body[-TAIL_CHARS:]
    for number, (pattern, tail_only, last) in enumerate(_steps(letters), start=1):
        hay = tail if tail_only else body
        matches = list(pattern.finditer(hay)) if last else [m for m in [pattern.search(hay)] if m]
        if matches:
            return ChoiceExtraction(matches[-1].group(1), number, truncated)
    return ChoiceExtraction(None, None, truncated)


def extract_choice(text: str, letters: str = LETTERS) -> str | None:
    """The answer letter per OVO-S-Bench G.7, or None (scored per the benchmark's policy)."""
    return extract_choice_detailed(text, letters).letter


# --------------------------------------------------------------------------------------------
# Exploration actions: S3-Bench §4.3

MOVE_ACTIONS = ("move_forward", "move_left", "move_right")
ROTATE_ACTIONS = {"rotate_left": 45.0, "rotate_right": 45.0, "scan_forward": 90.0,
                  "sweep_around": 360.0}  # fmt: skip
ACTIONS = (*MOVE_ACTIONS, *ROTATE_ACTIONS)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
_NAME_KEYS = ("action", "name", "type", "command")
_DISTANCE_KEYS = ("distance", "d", "distance_m", "meters", "metres", "value")
_ANGLE_KEYS = ("angle", "degrees", "deg")


def _canonical_name(obj: dict[str, Any]) -> str | None:
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str)), None)
    if name is None:
        return None
    words = re.findall(r"[a-z]+", name.lower())
    direction = obj.get("direction")
    if isinstance(direction, str) and len(words) == 1:
        words.append(direction.lower().strip())
    words = [w for w in words if w not in ("by", "the", "camera", "degrees", "deg")]
    if words[:1] == ["sweep"]:
        words = ["sweep", "around"]
    if words[:1] == ["scan"]:
        words = ["scan", "forward"]
    candidate = "_".join(words[:2])
    return candidate if candidate in ACTIONS else None


def _number_field(obj: dict[str, Any], keys: tuple[str, ...]) -> float | bool | None:
    """The first present key's value as a float; False when present but not a number."""
    for key in keys:
        if key in obj:
            value = obj[key]
            if isinstance(value, str):
                value = re.sub(r"(?i)\s*(m|meters?|metres?|°|deg(rees)?)$", "", value.strip())
                try:
                    value = float(value)
                except ValueError:
                    return False
            if isinstance(value, bool) or not isinstance(value, int | float):
                return False
            return float(value) if math.isfinite(value) else False
    return None


def normalise_action(obj: Any) -> dict[str, Any] | None:
    """Validate one decoded JSON value against the S3 action space; None when it is not one.

    Moves need a finite distance d > 0 in metres; rotations have fixed angles (45° left/right,
    90° scan forward, 360° sweep) and an angle given that differs from it makes the action
    invalid rather than silently corrected.
    """
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("action"), dict):  # {"action": {"name": ..., ...}}
        return normalise_action(obj["action"])
    name = _canonical_name(obj)
    if name is None:
        return None
    if name in MOVE_ACTIONS:
        d = _number_field(obj, _DISTANCE_KEYS)
        if d is None or d is False or d <= 0:
            return None
        return {"action": name, "distance": float(d)}
    angle = _number_field(obj, _ANGLE_KEYS)
    if angle is False or (angle is not None and angle != ROTATE_ACTIONS[name]):
        return None
    return {"action": name, "angle": ROTATE_ACTIONS[name]}


def _json_objects(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    objects = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = decoder.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        objects.append(obj)
        i = text.find("{", end)
    return objects


def extract_action(text: str) -> dict[str, Any] | None:
    """The exploration command as ``{"action": name, "distance"|"angle": float}``, or None.

    S3-Bench §4.3 only says the action "is structured in JSON format"; models wrap it in
    ```json fences or put it after prose.  Fenced blocks are read first, then any JSON object
    in the text; the last valid action wins (the final decision follows the reasoning).
    """
    body, _ = strip_thinking(text)
    candidates: list[Any] = []
    for block in _FENCE.findall(body):
        candidates.extend(_json_objects(block))
    if not candidates:
        candidates = _json_objects(body)
    valid = [a for a in map(normalise_action, candidates) if a is not None]
    return valid[-1] if valid else None


_LEADING_LETTER = re.compile(r"^[\s(\[\"'*]*([A-Za-z])(?:$|[\s]*[.):\]\"'*,]|\s*$)")


def leading_letter(text: str | None, letters: str) -> str | None:
    """The reply's leading option letter, whatever its case or brackets (" B", "(a)", "b."),
    else the G.7 cascade's letter."""
    if not text:
        return None
    body = strip_thinking(text)[0]
    m = _LEADING_LETTER.match(body)
    if m and m.group(1).upper() in letters:
        return m.group(1).upper()
    return extract_choice(text, letters)


_FIRST_WORD = re.compile(r"[A-Za-z]+")


def yes_no(text: str | None) -> str | None:
    """ "A" (yes) or "B" (no) from the reply's first word, any case ("Y"/"N" too)."""
    if not text:
        return None
    m = _FIRST_WORD.search(strip_thinking(text)[0])
    word = m.group(0).lower() if m else ""
    return "A" if word in ("yes", "y") else "B" if word in ("no", "n") else None
