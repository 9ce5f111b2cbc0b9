"""The official scorers of OVO-Bench, StreamingBench, OST-Bench and VSI-SUPER, rule by rule.

Each function restates one piece of a benchmark's published scoring code, quirks included, so
``--scorer official`` gives the leaderboard's reading of the same text; where that code would
crash, the function returns None and the caller records an invalid answer.  Sources
(repository: file, function):

* OVO-Bench — JoeLeelyf/OVO-Bench: ``utils/OVOBenchScore.py`` ``get_score``,
  ``get_score_REC``, ``get_score_SSR_CRR`` and the SSR/CRR "Y"/"N" shortcut.
* StreamingBench — THUNLP-MT/StreamingBench: ``src/data/count.py`` (``question[model][0]``;
  the proactive ``-2 <= last_time - ground_truth_time <= 2`` and ``ground_truth_output in
  last_answer``).
* OST-Bench — rbler1234/OST-Bench: ``evaluation/OST_evaluator.py`` ``process_answer``,
  ``Judgement_evalution``, ``Estimation_evaluation``, ``Enumeration_evalution``.
* VSI-SUPER — the Cambrian-S lmms-eval tasks ``cambrians_vsr/utils.py`` (``fuzzy_matching``,
  ``exact_match``), ``cambrians_vsc/utils.py`` (``float(results[0])``,
  ``mean_relative_accuracy``) and ``cambrians_vsc_streaming/utils.py`` (``json.loads``, the
  ``abs_dist_norm`` that returns 0.0 on any error).
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

# --------------------------------------------------------------------------------------------
# OVO-Bench


def ovobench_choice(response: str | None, letter: str) -> bool:
    """``int(gt in response)``: the letter anywhere in the response ("Because A..." is A);
    a failed call (``None``) is wrong."""
    return response is not None and letter in response


def ovobench_rec(response: str | None, count: int) -> bool:
    """``"".join(re.findall(r"\\d+", response)) == str(gt)``: "2 or 3" reads as 23."""
    return response is not None and "".join(re.findall(r"\d+", response)) == str(count)


def ovobench_yes_no(response: str | None, yes: bool) -> bool:
    """SSR and CRR: exactly "Y" (type 1) or "N" (type 0), else the case-sensitive substring
    "Yes" / "No" anywhere ("Not sure" is a No)."""
    if response is None:
        return False
    if response == ("Y" if yes else "N"):
        return True
    return ("Yes" if yes else "No") in response


# --------------------------------------------------------------------------------------------
# StreamingBench


def streamingbench_first_char(response: str | None) -> str | None:
    """``question[model][0]``: the first character (" B", "(A)" and "b" are wrong); None where
    count.py would raise (an empty or missing reply)."""
    return response[0] if response else None


def streamingbench_poll(response: str) -> tuple[float, str] | None:
    """The time and content of the last message of a proactive item's polling dialogue
    (``history[-1]``), from the dialogue recorded as the item's reply; None where count.py
    would raise (no poll was made) or the record is not a dialogue."""
    try:
        record = json.loads(response)
        last = record["dialog_history"][-1]
        return float(last["time"]), str(last["content"])
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def streamingbench_proactive(
    last: tuple[float, str], truth_time: float, output: str
) -> tuple[bool, bool]:
    """(time correct, answer correct): within ±2 s of the ground truth, and then the expected
    output as a case-sensitive substring of the last reply."""
    time_ok = -2 <= last[0] - truth_time <= 2
    return time_ok, time_ok and output in last[1]


# --------------------------------------------------------------------------------------------
# OST-Bench

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


# --------------------------------------------------------------------------------------------
# VSI-SUPER

_CONF = np.linspace(0.5, 0.95, int((0.95 - 0.5) / 0.05 + 2))


def vsisuper_count(response: str, truth: float) -> float | None:
    """``cambrians_vsc``: ``float(results[0])`` of the whole reply, MRA over the thresholds of
    ``np.linspace(.5, .95, 10)`` with ``<=`` and no tolerance (its 0.8 is 0.8000000000000000444,
    so a 20 % error scores 0.6, not 0.7); None where the task raises ("5 chairs", or a ground
    truth of 0)."""
    try:
        pred = float(response)
    except ValueError:
        return None
    if truth == 0:
        return None
    return float((abs(pred - truth) / truth <= 1 - _CONF).mean())


def vsisuper_stream_value(response: str) -> Any:
    """One element of the streaming reply list as ``json.loads`` gives it (the raw text when it
    is not JSON)."""
    try:
        return json.loads(response)
    except ValueError:
        return response


def vsisuper_stream(value: Any, truth: float) -> float:
    """``cambrians_vsc_streaming``: MRA whose ``abs_dist_norm`` returns 0.0 on any error — a
    non-number, or a ground truth of 0 — so such an answer scores a perfect 1.0."""
    try:
        rel = abs(value - truth) / truth
    except Exception:  # the task catches BaseException
        rel = 0.0
    return float((rel <= 1 - _CONF).mean())


__all__ = [
    "OST_NUMBER_WORDS",
    "ost_enumeration",
    "ost_estimation",
    "ost_judgement",
    "ost_process_answer",
    "ovobench_choice",
    "ovobench_rec",
    "ovobench_yes_no",
    "streamingbench_first_char",
    "streamingbench_poll",
    "streamingbench_proactive",
    "vsisuper_count",
    "vsisuper_stream",
    "vsisuper_stream_value",
]
