"""Suite-wide policy for tests that need an optional part.

README's first command installs the ``dev`` extras (no torch, no Ray), so on a newcomer's
machine the tests of the ``hf``, ``nlp`` and ``ray`` extras skip, each with its reason, and the
summary says how to run them.  CI installs everything and sets
``STREAMSPATIAL_TEST_EVERYTHING=1``: there a test skipped for a missing module or system
package fails the run, so nothing is silently left out where it must run.
"""

from __future__ import annotations

import os
import re

import pytest

EVERYTHING = os.environ.get("STREAMSPATIAL_TEST_EVERYTHING") == "1"
# Skip reasons that mean "a part is not installed": pytest.importorskip's own wording, and the
# "needs ..." of tests that look for a program (Debian's chromium).
MISSING = re.compile(r"could not import '([\w.]+)'|^needs ", re.IGNORECASE)
_missing: list[tuple[str, str]] = []


def _reason(report: pytest.TestReport | pytest.CollectReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _note(report: pytest.TestReport | pytest.CollectReport) -> None:
    if report.skipped and MISSING.search(_reason(report)):
        _missing.append((report.nodeid, _reason(report)))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _note(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _note(report)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _missing:
        return
    by_reason: dict[str, int] = {}
    for _, reason in _missing:
        by_reason[reason] = by_reason.get(reason, 0) + 1
    tr = terminalreporter
    tr.section("skipped: optional parts not installed")
    for reason, n in sorted(by_reason.items()):
        tr.write_line(f"{n:4d} × {reason}")
    if EVERYTHING:
        tr.write_line("STREAMSPATIAL_TEST_EVERYTHING=1: every extra must be installed; failing.")
    else:
        tr.write_line(
            "to run them: pip install -e '.[all]' (where no GPU is wanted, a CPU build of torch "
            "first: see README, Installing) and scripts/system-packages.sh"
        )


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if EVERYTHING and _missing:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
