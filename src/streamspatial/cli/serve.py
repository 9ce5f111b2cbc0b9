"""``streamspatial serve``: the human streaming baseline and the annotation tool in a browser."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from streamspatial.core.errors import StreamspatialError


def build_app(
    *,
    data: Path | None,
    videos: Path,
    out: Path,
    mode: str,
    annotations: Path | None,
    format: str = "auto",
    allowed_hosts: tuple[str, ...] = (),
):
    """The configured FastAPI app (shared by the command and the tests)."""
    try:
        from streamspatial.web import HumanStudy, ServeConfig, create_app
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise StreamspatialError(
            f"serve needs the web extra: pip install 'streamspatial[web]' ({exc})"
        ) from None
    from streamspatial.bench.registry import load_benchmark

    if not videos.is_dir():
        raise StreamspatialError(f"{videos}: videos folder not found")
    if mode not in ("streaming", "offline"):
        raise StreamspatialError(f"--mode {mode!r}: expected streaming or offline")
    study = None
    known: dict[str, str] = {}
    if data is not None:
        adapter, items = load_benchmark(data, format=format, videos=videos)
        study = HumanStudy(adapter, list(items), data=data, videos=videos, out=out, mode=mode)
        from streamspatial.web.annotate import ANNOTATION_FORMAT

        # Tasks the annotation form offers: those of the loaded items in its own format.
        for it in items:
            if it.benchmark == ANNOTATION_FORMAT and it.task.subcategory:
                known.setdefault(it.task.subcategory, it.task.task)
    from streamspatial.web.app import LOOPBACK_HOSTS

    config = ServeConfig(
        videos=videos,
        annotations=annotations or out / "annotations.ovos.jsonl",
        study=study,
        known_tasks=tuple(sorted(known.items())),
        allowed_hosts=(*LOOPBACK_HOSTS, *allowed_hosts),
    )
    return create_app(config), study


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(
        videos: Annotated[Path, typer.Option(help="Folder of the videos (the only one served).")],
        data: Annotated[
            Path | None,
            typer.Option(help="Benchmark file for the human study (omit to only annotate)."),
        ] = None,
        out: Annotated[
            Path, typer.Option(help="Folder for participants' run folders and annotations.")
        ] = Path("runs/human"),
        mode: Annotated[
            str, typer.Option(help="streaming (pause at each question, no rewatching) | offline")
        ] = "streaming",
        annotations: Annotated[
            Path | None,
            typer.Option(
                help="OVO-S JSONL the annotation tool appends to "
                "(default OUT/annotations.ovos.jsonl)."
            ),
        ] = None,
        format: Annotated[str, typer.Option("--format", help="Benchmark format (auto).")] = "auto",
        host: Annotated[
            str, typer.Option(help="Interface to bind; the default keeps it on this machine.")
        ] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
        allow_host: Annotated[
            list[str] | None,
            typer.Option(
                help="Host name the browser uses to reach this server, besides localhost "
                "(repeatable; needed with --host beyond loopback, e.g. the machine's name)."
            ),
        ] = None,
    ) -> None:
        """Human streaming baseline (answers → OUT/<name>-<mode>/predictions.jsonl) + annotation."""
        import uvicorn

        loopback = host in ("127.0.0.1", "localhost", "::1")
        extra = tuple(allow_host or ()) + (() if loopback or host in ("0.0.0.0", "::") else (host,))
        web_app, study = build_app(
            data=data, videos=videos, out=out, mode=mode, annotations=annotations, format=format,
            allowed_hosts=extra,
        )  # fmt: skip
        if not loopback:
            print(f"warning: serving on {host}: reachable from other machines", file=sys.stderr)
            if not extra:
                print(
                    "warning: only requests addressed to localhost are answered; name the "
                    "host browsers use with --allow-host",
                    file=sys.stderr,
                )
        print(f"streamspatial serve: http://{host}:{port}/", file=sys.stderr)
        try:
            uvicorn.run(web_app, host=host, port=port, log_level="warning")
        finally:
            if study is not None:
                study.close()


__all__ = ["build_app", "register"]
