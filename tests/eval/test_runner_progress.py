"""The runner's progress bar: videos, query points, errors and throughput, on a terminal only.

A long run must show where it is; a run piped to a file (CI, nohup) must not fill the log with
redraws.  Both are decided by whether stderr is a terminal.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
from functools import partial
from pathlib import Path

import pytest

from runner_fixtures import write_ovos
from streamspatial.agents import PolicyAgent
from streamspatial.bench.registry import load_benchmark
from streamspatial.eval.results import PREDICTIONS, PredictionWriter
from streamspatial.eval.runner import Runner
from streamspatial.models.baselines import RandomBackend

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Terminal(io.StringIO):
    """A stderr that says it is a terminal, keeping what was drawn."""

    def isatty(self) -> bool:
        return True


def run(tmp_path: Path, stderr: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> Runner:
    data, videos = write_ovos(tmp_path)
    adapter, items = load_benchmark(data)
    monkeypatch.setattr(sys, "stderr", stderr)
    with PredictionWriter(tmp_path / PREDICTIONS) as writer:
        runner = Runner(
            adapter=adapter,
            items=items,
            backend=RandomBackend(seed=1),
            agent=partial(PolicyAgent, "none"),
            writer=writer,
            videos=videos,
            model="random",
            progress=True,
        )
        asyncio.run(runner.run())
    return runner


def test_a_terminal_gets_videos_queries_errors_and_throughput(tmp_path, monkeypatch) -> None:
    term = Terminal()
    runner = run(tmp_path, term, monkeypatch)
    assert (runner.stats.videos_done, runner.stats.queries_done) == (3, 11)
    text = ANSI.sub("", term.getvalue())
    final = text.splitlines()[-2:]  # the last redraw: one line per bar
    assert re.fullmatch(r"videos .* 3/3 +\S+", final[0].strip()), final
    assert re.fullmatch(r"queries .* 11/11 errors 0 · \d+\.\d q/s \S+", final[1].strip()), final


def test_a_pipe_gets_no_bar(tmp_path, monkeypatch) -> None:
    pipe = io.StringIO()
    runner = run(tmp_path, pipe, monkeypatch)
    assert runner.stats.queries_done == 11
    assert pipe.getvalue() == ""
