"""Long streams: a 2-hour video with 240 query points (as many per minute as the 10-minute one's
20) runs in bounded memory, every policy and agent (slow: it decodes 2 hours of video once per
case).

Runs ``benchmarks/long_stream.py`` at 10 and 120 minutes; each case is its own process and its
peak RSS comes from the kernel.  Memory that grew with the stream (frames kept in the reader,
a growing agent state, per-query frame lists of whole-prefix agents) shows up as a 120-minute
peak far above the 10-minute one.  The margin is 24 MiB: the runner once kept every query's
frame list at once, which cost folding +26 MiB and the scene graph +32 MiB here; after the fix
the largest growth measured is +8 MiB (scene graph with classical perception).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "long_stream.py"
MARGIN_MIB = 24.0


@pytest.mark.slow
def test_two_hour_stream_bounded_memory_every_policy_and_agent() -> None:
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--lengths", "10", "120", "--json"],
        capture_output=True,
        text=True,
        timeout=3000,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(results) >= 11  # 7 policies + 4 agents
    for name, by_length in results.items():
        short, long = by_length["10"], by_length["120"]
        assert (short["queries"], long["queries"]) == (20, 240), (name, short, long)
        assert short["errors"] == long["errors"] == 0, (name, short, long)
        growth = long["peak_rss_mib"] - short["peak_rss_mib"]
        assert growth < MARGIN_MIB, (name, short["peak_rss_mib"], long["peak_rss_mib"])
