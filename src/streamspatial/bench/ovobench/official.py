"""OVO-Bench's scorer as released (``JoeLeelyf/OVO-Bench``, ``utils/OVOBenchScore.py``):
``get_score``, ``get_score_REC``, ``get_score_SSR_CRR`` and the SSR/CRR "Y"/"N" shortcut,
quirks included.
"""

from __future__ import annotations

import re


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


__all__ = ["ovobench_choice", "ovobench_rec", "ovobench_yes_no"]
