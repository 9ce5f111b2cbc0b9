"""Error types.

Every error the project raises on purpose is a :class:`ProjectError`, of one of four kinds that
must never be confused:

* :class:`StreamspatialError` and its subclasses are mistakes a user can make (a broken benchmark
  file, a missing video, a bad config).  The CLI prints them as one line and exits with code 2.
* :class:`RequestRefused`: a request a service refuses (the human study's web app), with the
  HTTP status it answers.
* :class:`AttemptFailed`: one attempt at something failed (a model request, a memory fold, a
  random floor plan), and the code that made it handles that where it is raised: retries,
  draws again, or records the error.  Neither the user's mistake nor a bug.
* :class:`CausalityError` is a bug: some code asked for a frame recorded after the query time.
  It is deliberately *not* a user error so that it is never swallowed as one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, located as precisely as we can.

    ``location`` is a line (``"line 12"``), a parquet row (``"row 3"``) or empty.
    """

    file: str
    field: str
    expected: str
    item_id: str | None = None
    location: str = ""

    def __str__(self) -> str:
        where = self.file
        if self.location:
            where += f":{self.location.removeprefix('line ').removeprefix('row ')}"
        parts = [where] if where else []  # a problem with no file: just what was expected
        if self.item_id is not None:
            parts.append(f"item {self.item_id}")
        if self.field:
            parts.append(f"field '{self.field}'")
        parts.append(self.expected)
        return ": ".join(parts)


class ProjectError(Exception):
    """The root of the errors the project raises on purpose (never a library's own)."""


class StreamspatialError(ProjectError):
    """A mistake in user input; printed as one line by the CLI, exit code 2."""


class InputError(StreamspatialError):
    """A user input is invalid; carries every :class:`Problem` found, not just the first."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, str):
            problems = [Problem(file="", field="", expected=problems)]
        elif isinstance(problems, Problem):
            problems = [problems]
        self.problems: list[Problem] = list(problems)
        first = str(self.problems[0]) if self.problems else "invalid input"
        more = len(self.problems) - 1
        super().__init__(first + (f" (and {more} more problem(s))" if more > 0 else ""))


class EndpointError(StreamspatialError):
    """A model server that cannot serve this run at all (nothing listening, wrong URL, key or
    model): every further request would fail the same way, so the run stops with one line
    instead of retrying and recording an error per query point."""


class RequestRefused(ProjectError):
    """A request a service refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class AttemptFailed(ProjectError):
    """One attempt failed, and is handled where it was made (tried again, drawn again or
    recorded as the query point's error): see the module's docstring."""


class CausalityError(ProjectError, RuntimeError):
    """Something asked for content recorded after the query time.  Always a bug."""
