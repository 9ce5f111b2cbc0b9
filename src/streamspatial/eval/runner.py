"""The evaluation runner: plan, stream each video once, ask, extract, score, record.

Shape of a run (``docs/architecture.md``, one query point end to end):

* the planner groups query points by video and orders them in time;
* each video is decoded in **one** sequential pass, in a worker thread (decoding is CPU-bound;
  the event loop stays free for HTTP calls), keeping only the frames some query will read;
* each video gets its own agent, made by the run's agent factory and reset to the video (see
  :mod:`streamspatial.agents.contract`); once the stream has delivered every frame query *k*
  needs **and** one of the ``concurrency`` request slots is free, the agent decides query *k*
  from a ``PrefixView`` cut at t_k — later frames may already be decoded (at most
  ``LOOKAHEAD`` query points ahead), the view refuses them — and the call goes out while
  decoding continues; the request is dropped with its answer, so memory depends on the
  concurrency, never on how many query points a benchmark has;
* each finished query point is extracted, scored by the benchmark's rule and appended durably.

Resume is the same code path: query points already in ``predictions.jsonl`` are skipped, and
multi-turn dependants read their dependency's answer from the stored record, so a killed run
resumes to the scores of an uninterrupted one.

Over 400 lines on purpose: scheduling a video (the decoding task, request slots, chains
waiting on earlier answers, recording) is one idea whose parts share one state; agent calls
live in :mod:`.agent_thread`, video plumbing in :mod:`.video_tools`.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamspatial.agents.contract import (
    Agent,
    Answer,
    Diagnostics,
    MemoryCallError,
    QueryContext,
    StreamingAgent,
    VideoStream,
)
from streamspatial.agents.exploration import Explorer
from streamspatial.agents.registry import AgentFactory
from streamspatial.agents.requests import check_prefix
from streamspatial.bench.base import BenchmarkAdapter
from streamspatial.core.errors import CausalityError, InputError, Problem, StreamspatialError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.eval.agent_thread import AgentThread
from streamspatial.eval.judge import Judge
from streamspatial.eval.planner import PlannedQuery, VideoPlan, plan
from streamspatial.eval.results import PredictionWriter, Record
from streamspatial.eval.video_tools import VideoTools
from streamspatial.models.types import Backend, ModelRequest, ModelResponse
from streamspatial.scoring.scorers import JUDGE_KEY, SCORER_KEY, SCORERS_KEY, prior_text, score_all
from streamspatial.video import PrefixView, SinglePassReader
from streamspatial.video.prefix import query_frame_index

# Query points a video's decoding may run ahead of its requests (frames go to the frame cache
# on disk, so this bounds work done early, not memory held).
LOOKAHEAD = 4


@dataclass
class RunStats:
    """Counts for the progress bar, ``run.json`` and the exit status."""

    videos_total: int = 0
    videos_done: int = 0
    queries_total: int = 0
    queries_done: int = 0
    skipped: int = 0
    errors: int = 0
    invalid: int = 0
    decodes: int = 0
    # Frames this run prepared (resized, JPEG) into the frame cache: those some query reads,
    # not every frame the decoder passed through on the way (0 when the cache had them all).
    frames_decoded: int = 0
    started: float = field(default_factory=time.monotonic)

    def as_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.__dict__.items() if k != "started"}


def make_record(
    pq: PlannedQuery,
    adapter: BenchmarkAdapter,
    agent: Agent,
    model: str,
    request: ModelRequest | None,
    response: ModelResponse,
    scorer: str = "paper",
    judge: dict[str, Any] | None = None,
) -> Record:
    """The record of one answered query point: ``extracted``/``score``/``valid`` are the run
    scorer's verdict, and ``extra["scorers"]`` holds every scorer's (scoring.scorers);
    ``judge``: what the run's language model judge said of the reply (``extra["judge"]``)."""
    item, query = pq.item, pq.query
    verdicts = score_all(item, query, None if response.error else response.text, judge)
    own = verdicts[scorer]
    extra: dict[str, Any] = {
        SCORER_KEY: scorer,
        SCORERS_KEY: {k: v.as_dict() for k, v in verdicts.items()},
    }
    if judge is not None:
        extra[JUDGE_KEY] = judge
    return Record.of_query(
        item,
        query,
        own,
        frame_times=list(request.frame_times) if request is not None else [],
        policy=agent.label,
        agent=agent.name,
        offline=agent.offline,
        model=model,
        raw_output=response.text,
        latency_s=round(response.latency_s, 4),
        prompt_tokens=response.prompt_tokens,
        completion_tokens=response.completion_tokens,
        error=response.error,
        cached=response.cached,
        extra=extra,
    )


# --------------------------------------------------------------------------------------------


class Runner:
    """Runs one configuration to completion (or resumes it) and writes every record.

    The collaborators are passed in so the CLI wires the real ones and tests can count them:
    ``agent`` is a factory (an Agent subclass taking no arguments, or a function returning a
    fresh agent) called once per video; ``video`` opens sources and makes single-pass
    readers (:class:`VideoTools`); ``explorer`` lets explorable items act in an environment.
    """

    def __init__(
        self,
        *,
        adapter: BenchmarkAdapter,
        items: Iterable[Item],
        backend: Backend | None,
        agent: AgentFactory,
        writer: PredictionWriter,
        videos: Path,
        model: str,
        concurrency: int = 8,
        frame_size: int = 448,
        max_pixels: int | None = None,
        cache_dir: Path | None = None,
        progress: bool = True,
        source_name: str = "benchmark",
        video: VideoTools | None = None,
        retry_errors: bool = False,
        explorer: Explorer | None = None,
        scorer: str = "paper",
        clips: str = "prefix",
        history: str = "own",
        judge: Judge | None = None,
    ):
        if isinstance(agent, Agent):
            raise TypeError(
                "Runner(agent=...) takes a factory (an Agent subclass or a function returning "
                "a fresh Agent): every video gets its own agent"
            )
        self.adapter = adapter
        self.items = list(items)
        self.backend = backend
        self.make_agent = agent
        # What records say about the agent (name, label, offline) and whether it reads video.
        self.agent: Agent = agent()
        self.writer = writer
        self.videos = videos
        self.model = model
        self.concurrency = concurrency
        self.frame_size = frame_size
        self.cache_dir = cache_dir
        self.show_progress = progress
        self.plans: list[VideoPlan] = plan(self.items, source=source_name)
        self.stats = RunStats(
            videos_total=len(self.plans), queries_total=sum(len(p.queries) for p in self.plans)
        )
        self.max_pixels = max_pixels
        self.video = video or VideoTools(
            frame_size=frame_size, max_pixels=max_pixels, cache_dir=cache_dir
        )
        self.retry_errors = retry_errors
        self.scorer = scorer  # whose verdict a record's own fields hold (scoring.scorers)
        # "official": show each query what the benchmark's official clip holds, which may end
        # after the query time (OVO-Bench's forward probes); "prefix": never past t_q.
        self.clips = clips
        # "official": a dialogue's earlier turns show what the official script shows there
        # (StreamingBench SQA: ground truth); "own": the model's own answers.
        self.history = history
        # The language model judge of benchmarks an LLM scores (``run --judge``): a backend of
        # its own, asked once the reply is in; None: such items are recorded not scored.
        self.judge = judge
        # Active exploration (S3-Bench §4.3): explorable items may act in an environment.
        self.explorer = explorer
        self._requests: asyncio.Semaphore | None = None
        self._agents: AgentThread | None = None
        self._progress: Any = None
        self._task_ids: dict[str, Any] = {}

    # -- public ---------------------------------------------------------------------------

    def check_videos(self) -> None:
        """Every pending video exists, before anything is spent (one line naming the item)."""
        if not self.agent.reads_video:
            return
        problems: list[Problem] = []
        if self.explorer is not None:
            problems += self.explorer.problems(self.adapter, self.items, self.videos)
        for vp in self.plans:
            if all(self._done(pq) for pq in vp.queries):
                continue
            item = vp.queries[0].item
            path = self.adapter.video_path(item, self.videos)
            files = self.adapter.frame_files(item, self.videos)
            missing = [f for f in files if not f.is_file()] if files is not None else []
            if missing:
                problems.append(
                    Problem(file=str(missing[0]), item_id=item.id, field="video",
                            expected=f"expected the image {missing[0].name} under {self.videos}")
                )  # fmt: skip
            elif files is None and not path.exists():
                problems.append(
                    Problem(
                        file=str(path),
                        item_id=item.id,
                        field="video",
                        expected=f"expected the video {item.video!r} under {self.videos}",
                    )
                )
        if problems:
            raise InputError(problems)

    async def run(self) -> RunStats:
        self.check_videos()
        self._requests = asyncio.Semaphore(self.concurrency)
        videos = asyncio.Semaphore(self.concurrency)
        # Agent code (reset, observe, decide) runs in its own thread: off the loop, so reading
        # frames and perception never stall requests in flight (eval.agent_thread).
        self._agents = AgentThread()
        with self._progress_bar():

            async def one(vp: VideoPlan) -> None:
                async with videos:
                    await self._run_video(vp)
                self.stats.videos_done += 1
                self._tick()

            tasks = [asyncio.create_task(one(vp)) for vp in self.plans]

            def close() -> None:
                self._agents.close()
                self.video.close()

            # Cancelled videos unwind (their decoding threads finish) before the temporary
            # frame folder goes away.
            await run_all(tasks, then=close)
        return self.stats

    # -- per video ------------------------------------------------------------------------

    async def _run_video(self, vp: VideoPlan) -> None:
        """One video: a decoding task runs ahead of the requests by at most ``LOOKAHEAD``
        query points (a bounded queue), and a request is built only once a concurrency slot
        is free, so memory depends on the concurrency and the frames per request — never on
        how many query points the video or the benchmark has."""
        pending = [pq for pq in vp.queries if not self._done(pq)]
        self.stats.skipped += len(vp.queries) - len(pending)
        self.stats.queries_done += len(vp.queries) - len(pending)
        self._tick()
        if not pending:
            return
        agent = self.make_agent()  # this video's own: no state shared with another stream
        path = self.adapter.video_path(pending[0].item, self.videos)
        files = self.adapter.frame_files(pending[0].item, self.videos)
        stream = VideoStream(vp.video, path, 0.0, 0)
        reader = None
        if agent.reads_video:
            args = (path,) if files is None else (path, files)  # still images: OST-Bench
            source = await asyncio.to_thread(self.video.open, *args)
            stream = VideoStream(vp.video, path, float(source.fps), int(source.n_frames))
            # Only the union is kept.  Agents that read the whole prefix (folding, scene graph)
            # need O(stream) frames per query: holding every query's list would grow memory
            # with queries × stream length, so each list is recomputed when its query is asked.
            union: set[int] = set()
            for pq in pending:
                union.update(self._frames_needed(agent, pq, stream))
            reader = await asyncio.to_thread(self.video.reader, source, sorted(union))
            del union
        decoded: asyncio.Queue[PlannedQuery | None] = asyncio.Queue(maxsize=LOOKAHEAD)

        async def decode() -> None:
            # Decoding runs in a worker thread, up to t_q and no further; calls already sent
            # for earlier queries proceed meanwhile.
            for pq in pending:
                if reader is not None:
                    await asyncio.to_thread(reader.advance_to, self._shown(pq).time)
                await decoded.put(pq)
            await decoded.put(None)

        assert self._agents is not None
        await self._agents.call(agent.reset, stream)
        answers: dict[str, asyncio.Future[Record]] = {}
        calls: list[asyncio.Task[None]] = []
        observed = [-1]  # streaming agents: last frame index fed, so each frame goes in once
        decoder = asyncio.create_task(decode())

        async def next_decoded() -> PlannedQuery | None:
            # Wait on the queue and on the decoder together: a decoder that fails (a file
            # truncated mid-run) puts nothing more, and its error must surface, not a hang.
            get = asyncio.ensure_future(decoded.get())
            await asyncio.wait({get, decoder}, return_when=asyncio.FIRST_COMPLETED)
            if get.done():
                return get.result()
            get.cancel()
            decoder.result()  # raises the decoder's error; a clean end has queued None
            return await decoded.get()

        try:
            while (pq := await next_decoded()) is not None:
                call = await self._query(agent, pq, reader, stream, answers, observed)
                if call is not None:
                    calls.append(call)
            await decoder
            await asyncio.gather(*calls)
        finally:
            decoder.cancel()
            for c in calls:
                c.cancel()
            with contextlib.suppress(BaseException):
                await decoder  # its decoding step ends before the reader is dropped
            if reader is not None:
                self.stats.frames_decoded += reader.stored
                self.stats.decodes += int(reader.stored > 0) + reader.extra_passes
                # A run stopped mid-video may have a decoding thread still inside the reader
                # ("generator already executing"): it ends with its step; the reader is dropped.
                with contextlib.suppress(ValueError):
                    reader.close()

    async def _query(
        self,
        agent: Agent,
        pq: PlannedQuery,
        reader: SinglePassReader | None,
        stream: VideoStream,
        answers: dict[str, asyncio.Future[Record]],
        observed: list[int],
    ) -> asyncio.Task[None] | None:
        """Decide one query point whose frames are decoded; the call's task, once it is sent.

        Agent code (``observe``, ``decide``) runs in the agent thread; a request is built only
        once a concurrency slot is free, and the slot goes with the call."""
        assert self._requests is not None and self._agents is not None
        shown = self._shown(pq)
        idx = self._frames_needed(agent, pq, stream) if reader is not None else []
        view = PrefixView(reader, shown.time) if reader is not None else None
        if isinstance(agent, StreamingAgent) and view is not None:
            fresh = [i for i in idx if i > observed[0]]
            await self._agents.call(_observe, agent, view, fresh)
            observed[0] = fresh[-1] if fresh else observed[0]
        done: asyncio.Future[Record] = asyncio.get_running_loop().create_future()
        if pq.query.index == len(pq.item.queries) - 1:
            answers[pq.item.id] = done
        refusal = self.adapter.official_clip_refusal(pq.item) if self.clips == "official" else None
        if refusal is not None:  # the official pipeline cannot ask it: invalid, with why
            self._record(pq, None, ModelResponse(text=""), done, note=refusal)
            return None
        # Earlier answers first: a slot held while waiting on them could starve the very
        # calls they wait for.
        prior, replies = await self._prior_answers(pq.item, answers)
        ctx = QueryContext(
            item=pq.item,
            query=shown,
            stream=stream,
            view=view,
            adapter=self.adapter,
            backend=self._agents.backend(self.backend) if self.backend is not None else None,
            frames=tuple(idx),
            prior_answers=prior,
            prior_replies=replies,
            history=self.history,
        )
        await self._requests.acquire()  # released when the call is answered
        sent = False
        try:
            try:
                decision = await self._agents.run(agent.decide(ctx))
            except MemoryCallError as exc:
                # The answer would rest on memory that was never built (a fold or caption
                # call failed): record it like a failed answer (exit 1; --retry-errors).
                self._record(pq, None, ModelResponse(text="", error=str(exc)), done)
                return None
            if isinstance(decision, Answer):  # the agent answered itself (rules, polling)
                diag = decision.diagnostics or Diagnostics.of_times([], shown)
                response = ModelResponse(text=decision.text)
                judged = await self._judged(pq, response)
                self._record(pq, None, response, done, diag.as_dict(), judge=judged)
                return None
            request = decision.request
            check_prefix(request, pq.item.id, shown.time)
            diag = decision.diagnostics or Diagnostics.of_request(request, shown)
            task = asyncio.create_task(
                self._ask(pq, request, done, diag.as_dict(), backend=decision.backend)
            )
            sent = True
            return task
        finally:
            if not sent:  # no call went out: its slot is free again
                self._requests.release()

    def _shown(self, pq: PlannedQuery) -> QueryPoint:
        """The query point as its agent sees it: at its own time, or — ``--clips official`` —
        at the end of the benchmark's official clip (records keep the query's own time)."""
        if self.clips != "official":
            return pq.query
        end = self.adapter.clip_end(pq.item, pq.query)
        return pq.query if end == pq.query.time else pq.query.model_copy(update={"time": end})

    def _frames_needed(self, agent: Agent, pq: PlannedQuery, stream: VideoStream) -> list[int]:
        """The agent's frame indices for one query, refused if any is after t_q (after the
        official clip's end with ``--clips official``)."""
        shown = self._shown(pq)
        idx = sorted({int(i) for i in agent.frames_needed(pq.item, shown, stream)})
        n_q = query_frame_index(shown.time, stream.fps, stream.n_frames)
        if idx and idx[-1] > n_q:
            raise CausalityError(
                f"agent {agent.label} wants frame {idx[-1]} for "
                f"item {pq.item.id} at t={pq.query.time} (n_q={n_q})"
            )
        return idx

    def _done(self, pq: PlannedQuery) -> bool:
        return self.writer.done(pq.key, retry_errors=self.retry_errors)

    async def _prior_answers(
        self, item: Item, answers: Mapping[str, asyncio.Future[Record]]
    ) -> tuple[dict[str, str] | None, dict[str, str] | None]:
        """The chain's earlier answers as the model committed to them, and its replies
        verbatim (None, None for an item that depends on nothing)."""
        if item.depends_on is None:
            return None, None
        chain: dict[str, str] = {}
        replies: dict[str, str] = {}
        dep_id: str | None = item.depends_on
        by_id = {it.id: it for it in self.items}
        while dep_id is not None:
            dep = by_id[dep_id]
            pending = answers.get(dep_id)
            # Asked in this run (new, or retried after an error): its fresh answer, never the
            # errored record it replaces; else the answer stored by an earlier run.
            if pending is not None:
                rec = await pending
            else:
                rec = self.writer.records[(dep_id, len(dep.queries) - 1)]
            chain[dep_id] = prior_text(rec, dep)
            replies[dep_id] = rec.raw_output
            dep_id = dep.depends_on
        return chain, replies

    async def _ask(
        self,
        pq: PlannedQuery,
        request: ModelRequest,
        done: asyncio.Future[Record],
        diagnostics: dict[str, Any] | None = None,
        *,
        backend: Backend | None = None,
    ) -> None:
        """Send one built request (to ``backend`` when the agent gave its own, else the run's
        model); its concurrency slot (taken by the caller) is released when the answer is in,
        and the request — frames and all — is dropped with it."""
        assert self._requests is not None
        actions = None
        try:
            backend = backend or self.backend
            assert backend is not None, "a request needs the run's backend"
            if self.explorer is not None and self.explorer.applies(pq.item):
                video = self.adapter.video_path(pq.item, self.videos)
                response, actions = await self.explorer.run(video, pq.query, request, backend)
            else:
                response = await backend.generate(request)
        except StreamspatialError:  # the endpoint cannot serve the run: stop it
            raise
        except Exception as exc:  # a backend must not raise; record it rather than lose it
            response = ModelResponse(text="", error=f"{type(exc).__name__}: {exc}")
        finally:
            self._requests.release()
        judged = await self._judged(pq, response)
        self._record(pq, request, response, done, diagnostics, actions, judge=judged)

    async def _judged(self, pq: PlannedQuery, response: ModelResponse) -> dict[str, Any] | None:
        """The judge's say on the reply, for an item its benchmark has judged (else None)."""
        if self.judge is None:
            return None
        text = None if response.error else response.text
        return await self.judge.verdict(self.adapter, pq.item, pq.query, text)

    def _record(
        self,
        pq: PlannedQuery,
        request: ModelRequest | None,
        response: ModelResponse,
        done: asyncio.Future[Record],
        diagnostics: dict[str, Any] | None = None,
        actions: list[Any] | None = None,
        judge: dict[str, Any] | None = None,
        note: str | None = None,
    ) -> None:
        record = make_record(
            pq, self.adapter, self.agent, self.model, request, response, self.scorer, judge
        )
        if note is not None:
            record.extra["note"] = note
        shown = self._shown(pq)
        if shown.time != pq.query.time:  # --clips official showed more than the prefix
            record.extra["shown_until"] = shown.time
        record.diagnostics = diagnostics
        record.actions = actions
        self.writer.append(record)
        self.stats.queries_done += 1
        self.stats.errors += record.error is not None
        self.stats.invalid += not record.valid
        self._tick()
        if not done.done():
            done.set_result(record)

    # -- progress -------------------------------------------------------------------------

    def _progress_bar(self) -> Any:
        import contextlib

        if not (self.show_progress and sys.stderr.isatty()):
            return contextlib.nullcontext()
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task_ids["videos"] = self._progress.add_task(
            "videos", total=self.stats.videos_total, info=""
        )
        self._task_ids["queries"] = self._progress.add_task(
            "queries", total=self.stats.queries_total, info=""
        )
        return self._progress

    def _tick(self) -> None:
        if self._progress is None:
            return
        s = self.stats
        elapsed = max(1e-6, time.monotonic() - s.started)
        rate = (s.queries_done - s.skipped) / elapsed
        self._progress.update(self._task_ids["videos"], completed=s.videos_done)
        self._progress.update(
            self._task_ids["queries"],
            completed=s.queries_done,
            info=f"errors {s.errors} · {rate:.1f} q/s",
        )


async def run_all(tasks: list[asyncio.Task], then: Callable[[], None] | None = None) -> None:
    """Await every task; when one fails (or this is cancelled) cancel the others, and in every
    case let them all unwind before returning (then call ``then``)."""
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if then is not None:
            then()


def _observe(agent: StreamingAgent, view: PrefixView, indices: list[int]) -> None:
    """Feed a streaming agent its new frames, in time order (agent thread)."""
    for frame in view.get(indices):
        agent.observe(frame)
