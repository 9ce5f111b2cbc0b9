"""Crash suite: SIGKILL at random moments, and results files cut at every kind of byte offset.

A killed run must resume to exactly the predictions and scores of an uninterrupted one, with
no duplicate and no lost record.  The SIGKILL trials (real subprocesses, random moments,
start-up included) are slow and run with ``-m slow``; the cut-file trials are in-process and
fast: a complete ``predictions.jsonl`` is cut at random byte offsets — mid-line, on a line
boundary, inside a multi-byte character — and the resumed run must repair the tail, keep
every complete record and ask only for the ones that were lost.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, write_ovos
from streamspatial.eval.results import PREDICTIONS
from streamspatial.testing.openai_server import FakeOpenAIServer
from test_cli_run import N_QUERY_POINTS, outcome, run_args, sigkill_trials


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


@pytest.fixture
def invoke(capsys):
    from streamspatial.cli import main

    def call(args: list[str]) -> tuple[int, str]:
        capsys.readouterr()
        try:
            main([str(a) for a in args[3:]])  # run_args starts with python -m streamspatial
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        return rc, capsys.readouterr().err

    return call


def test_cut_results_file_is_repaired_on_resume(bench, tmp_path, invoke) -> None:
    data, videos = bench
    rng = random.Random(17)
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        ref_dir = tmp_path / "reference"
        rc, err = invoke(run_args(data, videos, ref_dir, server))
        assert rc == 0, err
        reference = outcome(ref_dir)
        full = (ref_dir / PREDICTIONS).read_bytes()
        assert len(reference) == N_QUERY_POINTS
        # Mid-line offsets at random, plus the edges: empty file, one byte, a line boundary,
        # one byte short of complete.
        boundary = full.index(b"\n", len(full) // 2) + 1
        cuts = sorted({0, 1, boundary, len(full) - 1, *rng.sample(range(2, len(full) - 1), 10)})
        for cut in cuts:
            out = tmp_path / f"cut{cut}"
            shutil.copytree(ref_dir, out)
            (out / PREDICTIONS).write_bytes(full[:cut])
            complete = full[:cut].count(b"\n")
            asked = len(server.requests)
            rc, err = invoke(run_args(data, videos, out, server))
            assert rc == 0, (cut, err)
            assert f"{complete} resumed, {N_QUERY_POINTS - complete} new" in err, (cut, err)
            assert len(server.requests) - asked == N_QUERY_POINTS - complete
            assert outcome(out) == reference, cut
            lines = (out / PREDICTIONS).read_bytes().split(b"\n")
            assert lines[-1] == b"" and len(lines) - 1 == N_QUERY_POINTS, cut
            # The complete records before the cut are kept byte for byte.
            assert (
                (out / PREDICTIONS).read_bytes().startswith(full[: full.rfind(b"\n", 0, cut) + 1])
            )
    assert len(cuts) >= 10


@pytest.mark.slow
def test_sigkill_twelve_trials_resume_to_the_same_scores(bench, tmp_path) -> None:
    sigkill_trials(bench, tmp_path, trials=12, seed=29)
