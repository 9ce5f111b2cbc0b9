"""One progress bar per stage, for the commands whose work reports ``(stage, done, total)``.

``sim generate``, ``scans build`` and ``scans export`` hand their pipeline a callback that
names the stage (or walk) it is in, how far it is and how far it goes; each stage seen gets its
own bar, kept on screen when done, so the log shows every stage's count and time.  The
callback is made here once, so the commands differ only in what their bars show beside the
count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


@contextmanager
def stage_bars(
    console: Console,
    shown: bool = True,
    *,
    width: int,
    units: Mapping[str, str] | None = None,
    remaining: bool = False,
) -> Iterator[Callable[[str, int, int], None] | None]:
    """The ``(stage, done, total)`` callback drawing a bar per stage while the block runs, or
    ``None`` when ``shown`` is False (the work then runs without one, silently).

    ``width`` pads the stage's name so the bars line up; ``units`` names what each stage
    counts (a column after the count: ``render`` → ``frames``); ``remaining`` adds the time
    still to go.  A negative ``total`` means the stage does not know its length yet: its bar
    counts without an end.
    """
    if not shown:
        yield None
        return
    columns: list[ProgressColumn] = [
        TextColumn(f"{{task.description:<{width}}}"),
        BarColumn(),
        MofNCompleteColumn(),
    ]
    if units is not None:
        columns.append(TextColumn("{task.fields[unit]:<15}"))
    columns.append(TimeElapsedColumn())
    if remaining:
        columns.append(TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        tasks: dict[str, TaskID] = {}

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                fields = {} if units is None else {"unit": units.get(stage, "")}
                tasks[stage] = bar.add_task(stage, total=None, **fields)
            bar.update(tasks[stage], completed=done, total=None if total < 0 else total)

        yield report


__all__ = ["stage_bars"]
