"""Shared set-up of the training-data tests: a small train split made the way a user makes it
(``streamspatial sim generate --split train``), and ``export-sft`` run through the CLI."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from streamspatial.cli import main

# One house, a 24 s walk (two folds, at 10 and 20 s), small frames: a few seconds to render.
GENERATE = ["--houses", "1", "--seed", "3", "--minutes", "0.4", "--size", "96x72", "--fps", "5",
            "--rooms", "3", "--per-family", "1", "--no-prune"]  # fmt: skip


def cli(*args: object) -> tuple[int, str]:
    """Run the command line; (exit code, what it printed on stdout)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            return int(exc.code or 0), out.getvalue()
    return 0, out.getvalue()


def generate_train(root: Path, *extra: str) -> tuple[Path, str]:
    """A train split in ``root / "train"``; returns the folder and what the command printed."""
    out = root / "train"
    code, printed = cli("sim", "generate", "--out", out, "--split", "train", *GENERATE, *extra)
    assert code == 0, printed
    return out, printed
