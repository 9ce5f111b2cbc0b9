"""OST-Bench's evaluator as released (``rbler1234/OST-Bench``, ``evaluation/OST_evaluator.py``):
``process_answer``, ``Judgement_evalution``, ``Estimation_evaluation`` and
``Enumeration_evalution``, quirks included, so ``--scorer official`` reads a reply as the
leaderboard does; where that code would crash, a function returns None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

OST_NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                    "seven": 7, "eight": 8, "nine": 9, "ten": 10}  # fmt: skip


def ost_process_answer(raw: str) -> str:
    """``process_answer``: single quotes become double; without both "answer" and "reason" the
    whole text is the answer; else the text after ``"answer":`` (or ``answer:``) up to
    ``"reason"`` and the line's end, stripped of spaces, commas and quotes."""
    raw = raw.replace("'", '"')
    if "reason" not in raw or "answer" not in raw:
        text = raw
    elif '"answer":' in raw:
        text = raw.split('"answer":')[1].split('"reason"')[0].split("\n")[0].strip().strip(",")
        text = text.strip()
    elif "answer:" in raw:
        text = raw.split("answer:")[1].split("reason")[0].split("\n")[0].strip().strip(",")
        text = text.strip()
    else:
        text = ""
    return text.strip('"')


def _lcs(a: str, b: str) -> int:
    prev = [0] * (len(b) + 1)
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b, start=1):
            cur.append(prev[j - 1] + 1 if ca == cb else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def ost_judgement(pred: str, options: list[str]) -> int:
    """``Judgement_evalution``: the index of the option with the longest common subsequence
    with the prediction (both stripped and lower-cased); the first on ties (``np.argmax``)."""
    scores = [_lcs(str(pred).strip().lower(), o.strip().lower()) for o in options]
    return int(np.argmax(scores))


def ost_estimation(pred: str, truth: float) -> float | None:
    """``Estimation_evaluation``: ``0.1 · Σ [|gt − p| / |gt| < 1 − c]`` over ``c = 0.5 +
    0.05·i`` — a strict ``<``, so an error of exactly 5 % scores 0.9; 0 when ``float`` fails;
    None for a zero ground truth (the evaluator divides by it)."""
    try:
        p = float(pred)
    except (TypeError, ValueError):
        return 0.0
    if truth == 0:
        return None
    delta = abs(truth - p) / abs(truth)
    return 0.1 * sum(int(delta < 1 - (0.5 + 0.05 * i)) for i in range(10))


def ost_enumeration(pred: str, truth: float) -> float:
    """``Enumeration_evalution``: the first number word found *inside* the text, in the order
    zero…ten ("none" reads as 1, "often" as 10), else ``int(pred)``; 0 when that fails."""
    value: Any = pred
    for word, n in OST_NUMBER_WORDS.items():
        if word in pred.lower():
            value = n
            break
    try:
        return float(int(value) == int(truth))
    except (TypeError, ValueError):
        return 0.0


__all__ = [
    "OST_NUMBER_WORDS",
    "ost_enumeration",
    "ost_estimation",
    "ost_judgement",
    "ost_process_answer",
]
