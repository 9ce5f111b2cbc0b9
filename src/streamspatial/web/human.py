"""The human streaming baseline: people answer the benchmark under the models' protocol.

OVO-S-Bench §4.1 and VCBench App. B.3: a participant watches each video from its start; playback
pauses at every query time and only then is the question shown; played segments cannot be
rewatched and nothing past the furthest point reached can be seen.  The offline protocol shows
each video's questions with the whole video and allows free scrubbing (and is labelled offline,
like the oracle-evidence policy, because it is not a streaming result).

The page enforces this for usability; the server enforces it for honesty, so a participant
cannot obtain a question early or answer out of order by talking to the API directly:

* the furthest time a participant has reached only grows by what their wall-clock watching
  time allows (playback at 1×, plus a small slack; time spent on a question does not count),
  and never past the next unanswered query;
* a question's text and options are handed out only once its query time is reached, and only
  for the next query point in stream order;
* answers are accepted only for that query point, once.

Answers become :class:`~streamspatial.eval.results.Record` s in the participant's own run folder
(model ``human:<name>``), written by the runner's crash-safe writer and scored by the runner's
scoring rule, so ``report`` and ``compare`` treat a person exactly like a model.

Over 400 lines on purpose: the protocol's rules and the endpoints that enforce them must
be read together to check that no path lets a participant see ahead.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import RequestRefused, StreamspatialError
from streamspatial.core.schema import AnswerType, Item
from streamspatial.eval.planner import PlannedQuery, VideoPlan, plan
from streamspatial.eval.results import PredictionWriter, Record, RunFolder, read_run_json
from streamspatial.scoring.scorers import score

Mode = Literal["streaming", "offline"]
MODES: tuple[str, ...] = ("streaming", "offline")

PLAYBACK_RATE = 1.0  # the fastest a person may watch; the page plays at 1×
SLACK_S = 0.5  # request latency allowed on top of the wall-clock bound
REACH_EPS = 0.05  # a pause lands within a frame of the query time

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,39}$")


class StudyError(RequestRefused):
    """A request the study refuses; ``status`` is the HTTP status to answer with."""


def participant_slug(name: str) -> str:
    """A folder-safe form of a participant name (which is checked first)."""
    name = name.strip()
    if not _NAME.match(name):
        raise StudyError(
            422,
            "expected a participant name of 1–40 letters, digits, spaces, '.', '_' or '-'",
        )
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).lower()


def public_query(pq: PlannedQuery) -> dict[str, Any]:
    """What the page may show for a query point: never the answer or the evidence."""
    item = pq.item
    return {
        "item_id": item.id,
        "query_index": pq.query.index,
        "time": pq.query.time,
        "question": item.question,
        "answer_type": item.answer_type.value,
        "options": [{"letter": o.letter, "text": o.text, "image": o.image} for o in item.options],
        "task": item.task.task,
    }


@dataclass
class _VideoState:
    plan: VideoPlan
    started: float | None = None  # monotonic time the participant began watching
    reached: float = 0.0


@dataclass
class Participant:
    """One person's progress through the study, backed by their run folder."""

    name: str
    slug: str
    mode: Mode
    folder: RunFolder
    writer: PredictionWriter
    meta: dict[str, Any]
    adapter: BenchmarkAdapter
    videos: list[_VideoState]
    planned: int
    revealed: dict[tuple[str, int], float] = field(default_factory=dict)
    finished_written: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def model(self) -> str:
        return f"human:{self.name}"

    # -- where the participant is -------------------------------------------------------
    def video_url(self, video: str) -> str:
        """The participant's own video URL.  The query string names the video and, streaming,
        how far it reaches (a new URL each time the permitted prefix grows), for caches."""
        url = f"/api/participants/{self.slug}/video?v={quote(video)}"
        until = self._permitted(self.current())
        return url if until is None else f"{url}&until={until:g}"

    def _pending(self, vs: _VideoState) -> list[PlannedQuery]:
        return [pq for pq in vs.plan.queries if pq.key not in self.writer.records]

    def current(self) -> _VideoState | None:
        """The first video with an unanswered query point, in the study's order."""
        for vs in self.videos:
            if self._pending(vs):
                return vs
        return None

    def next_stop(self) -> PlannedQuery | None:
        vs = self.current()
        return self._pending(vs)[0] if vs is not None else None

    def state(self) -> dict[str, Any]:
        with self.lock:
            return self._state()

    def _state(self) -> dict[str, Any]:
        vs = self.current()
        done = len(self.writer.records)
        base: dict[str, Any] = {
            "participant": self.slug,
            "name": self.name,
            "model": self.model,
            "mode": self.mode,
            "answered": done,
            "total": self.planned,
            "finished": vs is None,
            "run_dir": str(self.folder.path),
        }
        if vs is None:
            if not self.finished_written:  # run.json says complete once, like a finished run
                self.folder.finish(self.meta, "complete", {"records": done})
                self.finished_written = True
            return base
        index = self.videos.index(vs)
        base["video"] = {
            "path": vs.plan.video,
            "url": self.video_url(vs.plan.video),
            "number": index + 1,
            "of": len(self.videos),
            "reached": vs.reached,
        }
        pending = self._pending(vs)
        if self.mode == "offline":
            base["questions"] = [public_query(pq) for pq in pending]
            now = time.monotonic()
            for pq in pending:
                self.revealed.setdefault(pq.key, now)
        else:
            base["next_time"] = pending[0].query.time
        return base

    # -- the streaming clock ------------------------------------------------------------
    def start(self, video: str) -> dict[str, Any]:
        with self.lock:
            vs = self._require_current(video)
            if vs.started is None:
                # Resuming: the participant has already seen up to ``reached``.
                vs.started = time.monotonic() - vs.reached / PLAYBACK_RATE
            return self._state()

    def progress(self, video: str, t: float) -> float:
        """Record how far playback has got; returns the furthest time the server accepts."""
        if not math.isfinite(t) or t < 0:
            raise StudyError(422, f"expected a playback time ≥ 0 in seconds, got {t}")
        with self.lock:
            vs = self._require_current(video)
            if self.mode == "offline":
                vs.reached = max(vs.reached, t)
                return vs.reached
            if vs.started is None:
                raise StudyError(409, "start the video before reporting progress")
            watched = (time.monotonic() - vs.started) * PLAYBACK_RATE + SLACK_S
            cap = self._pending(vs)[0].query.time
            vs.reached = max(vs.reached, min(t, watched, cap))
            return vs.reached

    # -- questions and answers ----------------------------------------------------------
    def question(self) -> dict[str, Any]:
        """The next query point's question, once the stream has reached its time."""
        with self.lock:
            pq = self.next_stop()
            if pq is None:
                raise StudyError(409, "every question has been answered")
            vs = self.current()
            assert vs is not None
            if self.mode == "streaming" and vs.reached + REACH_EPS < pq.query.time:
                raise StudyError(
                    409,
                    f"the stream has reached {vs.reached:.2f} s; this question is asked at "
                    f"{pq.query.time:.2f} s",
                )
            self.revealed.setdefault(pq.key, time.monotonic())
            return public_query(pq)

    def answer(self, item_id: str, query_index: int, value: Any) -> Record:
        with self.lock:
            vs = self.current()
            pending = self._pending(vs) if vs is not None else []
            allowed = pending if self.mode == "offline" else pending[:1]
            pq = next((p for p in allowed if p.key == (item_id, query_index)), None)
            if pq is None:
                if (item_id, query_index) in self.writer.records:
                    raise StudyError(409, f"item {item_id} query {query_index} already answered")
                raise StudyError(
                    409, f"item {item_id} query {query_index} is not the question being asked now"
                )
            if self.mode == "streaming" and pq.key not in self.revealed:
                raise StudyError(409, f"item {item_id}: the question has not been shown yet")
            extracted = parse_answer(pq.item, value)
            shown = self.revealed.get(pq.key)
            record = Record(
                item_id=pq.item.id,
                query_index=pq.query.index,
                t_q=pq.query.time,
                benchmark=pq.item.benchmark,
                task=pq.item.task.model_dump(),
                answer_type=pq.item.answer_type.value,
                frame_times=[],
                policy=f"human-{self.mode}",
                agent="human",
                offline=self.mode == "offline",
                model=self.model,
                raw_output=str(value).strip(),
                extracted=extracted,
                answer=pq.query.answer,
                score=score(self.adapter, pq.query.answer, extracted),
                valid=True,
                latency_s=round(time.monotonic() - shown, 3) if shown is not None else 0.0,
                source=pq.item.source,
                extra={"reached_s": round(vs.reached, 3) if vs is not None else None},
            )
            self.writer.append(record)
            if self.mode == "streaming" and vs is not None and vs.started is not None:
                # Time spent on the question is not watching time: the clock restarts here.
                vs.started = time.monotonic() - vs.reached / PLAYBACK_RATE
            return record

    def current_video(self) -> tuple[str, float | None]:
        """The one video this participant may load now, and up to which time (streaming: the
        next query time, so not a frame after the question can reach the browser; offline:
        None, the whole video)."""
        with self.lock:
            vs = self.current()
            if vs is None:
                raise StudyError(409, "every question has been answered")
            return vs.plan.video, self._permitted(vs)

    def _permitted(self, vs: _VideoState | None) -> float | None:
        if self.mode == "offline" or vs is None:
            return None
        return self._pending(vs)[0].query.time

    def _require_current(self, video: str) -> _VideoState:
        vs = self.current()
        if vs is None or vs.plan.video != video:
            raise StudyError(409, f"{video!r} is not the video being watched now")
        return vs

    def close(self) -> None:
        self.writer.close()
        self.folder.close()  # the run folder's lock: another server may take it now


def parse_answer(item: Item, value: Any) -> str | float:
    """A participant's answer as the runner's extraction would give it; bad input is refused."""
    text = str(value).strip()
    if item.answer_type is AnswerType.CHOICE:
        letter = text.upper()
        if letter not in item.letters:
            raise StudyError(422, f"item {item.id}: expected one of the options {item.letters}")
        return letter
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise StudyError(422, f"item {item.id}: expected a number, got {text!r}")
    return number


def _recorded_name(folder: RunFolder) -> str | None:
    try:
        model = read_run_json(folder.path).get("config", {}).get("model", "")
    except StreamspatialError:
        return None
    return model.removeprefix("human:") if model.startswith("human:") else None


class HumanStudy:
    """Every participant of one benchmark file, each in ``out/<name>-<mode>/``."""

    def __init__(
        self,
        adapter: BenchmarkAdapter,
        items: list[Item],
        *,
        data: Path,
        videos: Path,
        out: Path,
        mode: Mode,
    ):
        if mode not in MODES:
            raise StreamspatialError(f"unknown mode {mode!r}; expected streaming or offline")
        folders = sorted({it.video for it in items if (videos / it.video).is_dir()})
        if folders:
            raise StreamspatialError(
                f"{videos / folders[0]}: is a frame folder; the browser study needs video files"
            )
        self.adapter = adapter
        self.items = items
        self.plans = plan(items, source=str(data))
        self.data = Path(data)
        self.videos = Path(videos)
        self.out = Path(out)
        self.mode: Mode = mode
        self._participants: dict[str, Participant] = {}
        self._lock = threading.Lock()

    @property
    def query_points(self) -> int:
        return sum(len(vp.queries) for vp in self.plans)

    def _open(
        self, folder: RunFolder, config: dict[str, Any], digest: str, scoring: Any
    ) -> dict[str, Any]:
        return folder.open(
            config,
            digest,
            extra={
                "benchmark": {
                    "format": self.adapter.name,
                    "table": scoring.table,
                    "invalid": scoring.invalid,
                    "number_metric": scoring.number_metric,
                    "items": len(self.items),
                    "query_points": self.query_points,
                },
                "offline": self.mode == "offline",
            },
        )

    def join(self, name: str) -> Participant:
        """Create or resume the participant's run folder (the same name resumes)."""
        slug = participant_slug(name)
        with self._lock:
            if slug in self._participants:
                return self._participants[slug]
            folder = RunFolder(self.out / f"{slug}-{self.mode}")
            # "Ada" and "ada" are one participant: keep the name the folder was made with.
            name = _recorded_name(folder) or name.strip()
            config = {
                "data": str(self.data.expanduser().resolve()),
                "videos": str(self.videos.expanduser().resolve()),
                "model": f"human:{name}",
                "agent": "human",
                "policy": f"human-{self.mode}",
                "mode": self.mode,
            }
            digest = hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]
            scoring = self.adapter.scoring
            try:
                meta = self._open(folder, config, digest, scoring)
            except StreamspatialError as exc:  # e.g. the folder holds another benchmark's run
                raise StudyError(409, str(exc)) from None
            writer = PredictionWriter(folder.predictions)
            states = []
            for vp in self.plans:
                vs = _VideoState(plan=vp)
                answered = [pq.time for pq in vp.queries if pq.key in writer.records]
                vs.reached = max(answered, default=0.0)
                states.append(vs)
            p = Participant(
                name=name,
                slug=slug,
                mode=self.mode,
                folder=folder,
                writer=writer,
                meta=meta,
                adapter=self.adapter,
                videos=states,
                planned=self.query_points,
            )
            self._participants[slug] = p
            return p

    def get(self, slug: str) -> Participant:
        p = self._participants.get(slug)
        if p is None:
            raise StudyError(404, f"no participant {slug!r}; enter your name on the start page")
        return p

    def close(self) -> None:
        for p in self._participants.values():
            p.close()


__all__ = [
    "MODES",
    "HumanStudy",
    "Participant",
    "StudyError",
    "parse_answer",
    "participant_slug",
    "public_query",
]
