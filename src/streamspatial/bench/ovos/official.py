"""OVO-S-Bench's answer reader as released: ``score.py`` ``extract_answer`` of
``InternLM/OVO-S-Bench``, rule by rule and quirks included, which ``--scorer official`` reads
answers with (the papers' formulas, ``--scorer paper``, live in
:mod:`streamspatial.grading.extract`).
"""

from __future__ import annotations

import re

__all__ = ["ovos_letter"]

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
