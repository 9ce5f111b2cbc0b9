"""The FastAPI application behind ``streamspatial serve``.

Plain HTML pages (no build step; ``pages/``, each in the one frame of :mod:`.pages`) with
their JavaScript and stylesheet under ``static/``; a JSON API for the human study and the
annotation tool; and ``/media/<path>`` serving videos only from the configured folders, with
range requests.  Refusals are JSON ``{"detail": ...}`` with a 4xx status.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    StreamingResponse,
)
from pydantic import BaseModel

from .annotate import AnnotationError, AnnotationStore
from .human import HumanStudy, StudyError
from .media import (
    MediaError,
    iter_file,
    list_videos,
    media_type,
    parse_range,
    resolve_media,
    resolve_video,
)
from .pages import TITLES, page_html
from .prefix_cut import PrefixCuts

STATIC = Path(__file__).parent / "static"


LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")
MAX_BODY_BYTES = 1 << 20  # the largest JSON body a page sends is an annotation: far below


@dataclass
class ServeConfig:
    videos: Path
    annotations: Path
    study: HumanStudy | None = None
    known_tasks: tuple[tuple[str, str], ...] = ()  # (code, name) offered by the annotation form
    # Host headers answered (DNS rebinding: a page elsewhere must not reach this server under
    # its own name); add the machine's name when serving beyond loopback.
    allowed_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    max_body_bytes: int = MAX_BODY_BYTES
    cuts: Path | None = None  # where streaming prefixes are cached (default: study out/.cuts)


class JoinBody(BaseModel):
    name: str


class VideoBody(BaseModel):
    video: str


class ProgressBody(BaseModel):
    video: str
    time: float


class AnswerBody(BaseModel):
    item_id: str
    query_index: int
    answer: str


def create_app(config: ServeConfig) -> FastAPI:
    from starlette.middleware.trustedhost import TrustedHostMiddleware

    app = FastAPI(title="streamspatial", docs_url=None, redoc_url=None, openapi_url=None)
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(config.allowed_hosts))
    store = AnnotationStore(config.annotations, config.videos)
    roots = [config.videos]
    cuts = PrefixCuts(
        config.cuts or (config.study.out / ".cuts" if config.study else config.videos / ".cuts")
    )

    @app.exception_handler(StudyError)
    async def _study_error(_: Request, exc: StudyError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    @app.exception_handler(AnnotationError)
    async def _annotation_error(_: Request, exc: AnnotationError) -> JSONResponse:
        return JSONResponse({"detail": exc.problems}, status_code=422)

    @app.exception_handler(MediaError)
    async def _media_error(_: Request, exc: MediaError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=exc.status)

    # -- pages --------------------------------------------------------------------------
    for page in TITLES:

        def _page(name: str = page) -> HTMLResponse:
            return HTMLResponse(page_html(name))

        app.get("/" if page == "index" else f"/{page}", include_in_schema=False)(_page)

    @app.get("/static/{name}")
    def static(name: str) -> FileResponse:
        path = resolve_media([STATIC], name)
        return FileResponse(path, media_type=media_type(path))

    # -- media --------------------------------------------------------------------------
    # In a streaming study the study's videos reach participants only through their session
    # (the current video, nothing earlier or later); /media keeps serving everything else.
    protected: set[Path] = set()
    if config.study is not None and config.study.mode == "streaming":
        protected = {(config.study.videos / vp.video).resolve() for vp in config.study.plans}

    @app.get("/media/{path:path}")
    def media(path: str, request: Request) -> Any:
        file = resolve_video(roots, path)
        if file in protected:
            raise MediaError(
                403, "this video belongs to the streaming study; it is served through a session"
            )
        return ranged_file(file, request.headers.get("range"))

    # -- human study --------------------------------------------------------------------
    def study() -> HumanStudy:
        if config.study is None:
            raise StudyError(404, "no benchmark loaded: start serve with --data for the study")
        return config.study

    @app.get("/api/study")
    def study_info() -> dict[str, Any]:
        s = config.study
        if s is None:
            return {"enabled": False}
        return {
            "enabled": True,
            "mode": s.mode,
            "data": s.data.name,
            "videos": len(s.plans),
            "query_points": s.query_points,
        }

    @app.post("/api/participants")
    def join(body: JoinBody) -> dict[str, Any]:
        return study().join(body.name).state()

    @app.get("/api/participants/{slug}")
    def state(slug: str) -> dict[str, Any]:
        return study().get(slug).state()

    @app.post("/api/participants/{slug}/start")
    def start(slug: str, body: VideoBody) -> dict[str, Any]:
        return study().get(slug).start(body.video)

    @app.post("/api/participants/{slug}/progress")
    def progress(slug: str, body: ProgressBody) -> dict[str, Any]:
        return {"reached": study().get(slug).progress(body.video, body.time)}

    @app.get("/api/participants/{slug}/video")
    def participant_video(slug: str, request: Request) -> Any:
        p = study().get(slug)
        video, until = p.current_video()
        file = resolve_video(roots, video)
        if until is not None:  # streaming: the prefix up to the next question, nothing after
            file = cuts.path(file, until)
        return ranged_file(file, request.headers.get("range"))

    @app.get("/api/participants/{slug}/question")
    def question(slug: str) -> dict[str, Any]:
        return study().get(slug).question()

    @app.post("/api/participants/{slug}/answers")
    def answer(slug: str, body: AnswerBody) -> dict[str, Any]:
        p = study().get(slug)
        rec = p.answer(body.item_id, body.query_index, body.answer)
        return {"recorded": [rec.item_id, rec.query_index], **p.state()}

    # -- annotation ---------------------------------------------------------------------
    @app.get("/api/annotation")
    def annotation_info() -> dict[str, Any]:
        tasks = dict(config.known_tasks)
        for it in store.items:
            if it.task.subcategory:
                tasks.setdefault(it.task.subcategory, it.task.task)
        return {
            "videos": [
                v
                for v in list_videos(config.videos)
                if (config.videos / v).resolve() not in protected
            ],
            "tasks": [{"code": c, "name": n} for c, n in sorted(tasks.items())],
            "items": len(store.items),
            "next_id": store.next_id(),
            "file": str(config.annotations),
        }

    @app.post("/api/annotations")
    def add_annotation(form: dict[str, Any]) -> dict[str, Any]:
        item = store.add(form)
        return {"id": item.id, "items": len(store.items), "next_id": store.next_id()}

    @app.get("/api/annotations.jsonl")
    def export() -> PlainTextResponse:
        return PlainTextResponse(
            store.text(),
            media_type="application/jsonl",
            headers={"Content-Disposition": f'attachment; filename="{config.annotations.name}"'},
        )

    return app


class BodyLimit:
    """Refuses request bodies over ``limit`` bytes with 413 before any handler sees them:
    announced by ``Content-Length``, or streamed in chunks (read here, at most ``limit`` bytes
    held, then handed on)."""

    def __init__(self, app: Any, limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        length = headers.get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.limit:
                await self._refuse(scope, receive, send)
                return
            await self.app(scope, receive, send)
            return
        if b"transfer-encoding" not in headers:  # no body at all
            await self.app(scope, receive, send)
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > self.limit:
                await self._refuse(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Any, receive: Any, send: Any) -> None:
        response = JSONResponse(
            {"detail": f"request body over {self.limit} bytes"}, status_code=413
        )
        await response(scope, receive, send)


def ranged_file(file: Path, range_header: str | None) -> Any:
    """The whole file (200) or the requested byte range (206, ``Content-Range``), or 416."""
    size = file.stat().st_size
    headers = {"Accept-Ranges": "bytes", "Cache-Control": "no-store"}
    try:
        span = parse_range(range_header, size)
    except MediaError:
        headers["Content-Range"] = f"bytes */{size}"
        return PlainTextResponse("range not satisfiable", status_code=416, headers=headers)
    if span is None:
        headers["Content-Length"] = str(size)
        return StreamingResponse(
            iter_file(file, 0, size - 1), media_type=media_type(file), headers=headers
        )
    start, end = span
    headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(end - start + 1)
    return StreamingResponse(
        iter_file(file, start, end), status_code=206, media_type=media_type(file), headers=headers
    )


__all__ = ["ServeConfig", "create_app"]
