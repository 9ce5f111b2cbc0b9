"""``streamspatial ARGS`` run in-process, as the tests that read its printed output need it."""

from __future__ import annotations

from streamspatial.cli import main


def cli(capsys, *args: object) -> tuple[int, str]:
    """Exit code and everything printed (stdout then stderr) of ``streamspatial ARGS``."""
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    got = capsys.readouterr()
    return rc, got.out + got.err
