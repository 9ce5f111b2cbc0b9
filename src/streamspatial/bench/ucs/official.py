"""UCS-Bench's answer readers as released (``cocowy1/UCS-Bench``), one per released shape:
``directme/eval/eval_ucsbench.py`` ``parse_option_from_answer`` (its JSON-array files) and
``directme/qa/prompts.py`` ``MultipleChoicePromptBuilder.parse_answer`` (used by
``examples/evaluate_ucsbench_vlm.py`` on its JSONL files), quirks included.
"""

from __future__ import annotations

import re

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


__all__ = ["ucs_array_letter", "ucs_jsonl_letter"]
