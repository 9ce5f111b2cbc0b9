"""Run options declared once, by the part of a run that reads them.

A run's options come from three owners: the run itself (``eval.options``: the benchmark file,
the scorer, the executor…), each agent (its registry entry: ``--perception``,
``--fold-every``…) and each model kind (``models.options``: ``--device`` for ``hf:``,
``--base-url`` for ``openai:``…).  Each declares its options here as :class:`Option` records,
and everything that offers them is made from those records: the run's configuration
(``eval.config.RunConfig``), the flags of ``streamspatial run`` and the keyword parameters
of :func:`streamspatial.evaluate`.  So an option's type, default, bounds and help text are
written in one place, and the command line, a YAML file and the library cannot disagree.

Only the declaration lives in ``core`` (it imports nothing of the project); turning one into a
pydantic field or a command-line flag is done by the rooms that own those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


class _Required:
    """The default of an option that must be given (``--data``, ``--out``…)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True)
class Option:
    """One run option.

    ``type``: the value's type, as the configuration holds it.  ``default``: its value when
    not given (:data:`REQUIRED`: it must be given); ``factory`` makes a fresh mutable default
    instead.  ``bounds``: its numeric limits (``ge``, ``gt``, ``le``), ``check``: a function
    that returns the value or raises ``ValueError`` naming what is expected.  ``help``: the
    ``--help`` text, byte for byte.  ``execution_only``: the option changes how or where a
    run executes, not what it computes, so a run folder may resume under another value.

    On the command line: ``flag`` is its spelling (default ``--name-with-dashes``); ``cli``
    False leaves it to a config file and the library (``extra_body``, ``sampling``).  A
    ``switch`` takes no value: given, it sets the opposite of the default (``--no-progress``
    sets ``progress`` False).  A ``listed`` option is written comma-separated.  ``cli_type``
    is the type the flag reads when it differs from ``type`` (a ``Literal`` shown as a
    plain string).
    """

    name: str
    type: Any
    default: Any = REQUIRED
    help: str = ""
    bounds: Mapping[str, float] = field(default_factory=dict)
    check: Callable[[Any], Any] | None = None
    factory: Callable[[], Any] | None = None
    execution_only: bool = False
    flag: str | None = None
    cli: bool = True
    switch: bool = False
    listed: bool = False
    cli_type: Any = None

    @property
    def required(self) -> bool:
        return self.default is REQUIRED and self.factory is None

    @property
    def spelling(self) -> str:
        """The flag as the command line spells it."""
        return self.flag or "--" + self.name.replace("_", "-")

    @property
    def param(self) -> str:
        """The command's parameter name for the flag (``--no-progress``: ``no_progress``)."""
        return self.spelling.removeprefix("--").replace("-", "_")


def merge_options(*groups: Iterable[Option]) -> dict[str, Option]:
    """The options of several owners by name, in order of first declaration.

    Two owners may declare one option (``--perception`` for both scene-graph agents) only
    with the same declaration: a name meaning two things to two owners is refused here,
    when the configuration is made, not found later as a silent override.
    """
    out: dict[str, Option] = {}
    for group in groups:
        for option in group:
            known = out.setdefault(option.name, option)
            if known != option:
                raise ValueError(f"option {option.name!r} is declared twice, differently")
    return out


__all__ = ["REQUIRED", "Option", "merge_options"]
