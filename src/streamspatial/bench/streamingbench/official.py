"""StreamingBench's counter as released (``THUNLP-MT/StreamingBench``, ``src/data/count.py``):
``question[model][0]`` as the answer, and the proactive rule ``-2 <= last_time -
ground_truth_time <= 2`` with ``ground_truth_output in last_answer``, quirks included.
"""

from __future__ import annotations

import json


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


__all__ = ["streamingbench_first_char", "streamingbench_poll", "streamingbench_proactive"]
