"""How a run ends: a final state in ``run.json`` whatever stops it, and the totals it reports.

A run folder whose ``run.json`` says ``running`` after the process is gone tells its user
nothing; so the work of a run is wrapped here: a normal end writes ``complete`` or ``errors``
with counts over the final record of every query point, and anything that stops it — a user
error found late, a server that cannot serve it, a bug, Ctrl-C, SIGTERM — writes ``failed`` or
``interrupted`` with a one-line reason before the exception goes on.  (SIGKILL cannot be
caught: a reader sees ``killed`` instead, see :func:`~streamspatial.eval.results.read_run_json`.)
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterable
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.results import Record, RunFolder


def one_line(exc: BaseException) -> str:
    """How a run ended, as ``run.json``'s reason: the error's first line (redacted on write)."""
    text = str(exc).strip().splitlines()
    head = text[0] if text else ""
    if isinstance(exc, StreamspatialError):
        return head or type(exc).__name__
    return f"{type(exc).__name__}: {head}" if head else type(exc).__name__


def totals(records: Iterable[Record], stats: dict[str, int]) -> dict[str, int]:
    """The run's counts: its own work (``stats``) and totals over the final records, so a
    resumed or retried run counts what it kept from before, not only what it made."""
    final = list(records)
    return {
        **stats,
        "records": len(final),
        "errors_total": sum(1 for r in final if r.error),
        "invalid_total": sum(1 for r in final if not r.valid and not r.error),
    }


def summary_line(out: Any, counts: dict[str, int], *, scorer: str | None = None) -> str:
    new = counts["queries_done"] - counts["skipped"]
    by = f" (scorer {scorer})" if scorer else ""
    return (
        f"{out}: {counts['records']} records ({counts['skipped']} resumed, {new} new), "
        f"{counts['errors_total']} with errors, {counts['invalid_total']} invalid{by}; "
        f"{counts['decodes']} video decode(s)"
    )


def run_to_a_final_state(
    folder: RunFolder,
    meta: dict[str, Any],
    work: Callable[[], dict[str, int]],
    progress: Callable[[], dict[str, int]],
    *,
    planned: int,
) -> dict[str, int]:
    """Run ``work`` (which returns :func:`totals`) and write how it ended into ``run.json``.

    ``progress`` gives the counts so far, for a run that stops before ``work`` returns.
    """
    with _sigterm_as_exit():
        try:
            counts = work()
        except KeyboardInterrupt:
            folder.finish(meta, "interrupted", progress(), reason="interrupted (Ctrl-C)")
            raise
        except SystemExit as exc:
            how = "terminated (SIGTERM)" if exc.code == 143 else f"stopped (exit {exc.code})"
            folder.finish(meta, "interrupted", progress(), reason=f"{how}; re-run to resume")
            raise
        except BaseException as exc:
            folder.finish(meta, "failed", progress(), reason=one_line(exc))
            raise
    done = counts["errors_total"] == 0 and counts["records"] >= planned
    folder.finish(meta, "complete" if done else "errors", counts)
    return counts


class _sigterm_as_exit:
    """SIGTERM (a scheduler's or ``kill``'s) ends the run like Ctrl-C: through the handlers
    that write ``run.json``, exit status 143.  Only the main thread can install it."""

    def __enter__(self) -> None:
        self._old: Any = None
        if threading.current_thread() is threading.main_thread():

            def handler(signum: int, frame: Any) -> None:
                raise SystemExit(128 + signum)

            self._old = signal.signal(signal.SIGTERM, handler)

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)


def run_local(runner: Any, backend: Any | None) -> None:
    """The run on this machine's event loop; SIGTERM cancels it cleanly (connections closed,
    decoding threads joined) and then ends the process like Ctrl-C, with status 143."""
    stopped: list[int] = []
    try:
        asyncio.run(_drive(runner, backend, stopped))
    except asyncio.CancelledError:
        if stopped:
            raise SystemExit(128 + stopped[0]) from None
        raise


async def _drive(runner: Any, backend: Any, stopped: list[int]) -> None:
    loop = asyncio.get_running_loop()
    main = asyncio.current_task()

    def terminate() -> None:
        stopped.append(int(signal.SIGTERM))
        if main is not None:
            main.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not main thread
        loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        await runner.run()
    finally:
        if backend is not None:  # an agent that answers itself runs without one
            await backend.aclose()
        judge = getattr(runner, "judge", None)
        if judge is not None:
            await judge.close()


__all__ = ["one_line", "run_local", "run_to_a_final_state", "summary_line", "totals"]
