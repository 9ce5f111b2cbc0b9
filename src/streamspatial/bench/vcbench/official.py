"""VCBench's answer reader as released (``buaa-colalab/VCBench``): ``eval/demo_gemini.py``
keeps ``raw_text.strip()`` and ``eval/unify_results.py`` reads it with ``int(pred)``, None on
failure; ``eval/compute_metrics.py`` then averages (:mod:`.score`).
"""

from __future__ import annotations


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


__all__ = ["vcbench_int"]
