"""AMF-VLM's periodic memory folding (S3-Bench §4.2) on top of any model backend.

A long stream cannot go to the model frame by frame, and a plain frame sample forgets what
happened between its frames.  AMF-VLM keeps two things instead: a *dense* recent window (1 fps
over the last 10 s) and, every K seconds (K = 10), a *fold*: the model describes the window it
has just seen and merges that description with the previous memory text into an updated global
memory; the fold keeps a single frame with that text.  The answer request is

    [system prompt, interleave(sparse fold frames, fold memories), dense frames, question]

Folds are ordinary model calls through the run's backend and response cache (side calls made
while deciding a query, before its answer request), asked at their fold time with frames
up to that time only, so a fold at t never sees the stream after t, and a query at t_q uses only
folds at times ≤ t_q.  Prompt size is bounded whatever the stream length: at most
``max_folds`` fold frames, each memory text clipped to ``memory_chars``, and the dense window.

``memory_format="json"`` (``--fold-memory json``) asks for the structured memory of
:mod:`streamspatial.agents.fold_memory` instead of prose and reads it back: a reply with no
usable JSON memory keeps the previous memory and is counted (``fold_malformed``).  The
training targets of ``sim generate --split train`` are written in the same layout, after the
same request, so a model trained on them writes memory this agent can use.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from streamspatial.core.errors import CausalityError, InputError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.models.types import Backend, GenerationParams, ImagePart, Part, TextPart
from streamspatial.video.coverage import evidence_bins, retained_bins
from streamspatial.video.prefix import PrefixView

from . import fold_memory as fm
from .contract import (
    FOLD_EVERY_S,
    AgentOptions,
    Ask,
    Diagnostics,
    MemoryCallError,
    QueryContext,
    VideoStream,
)
from .model_memory import ModelMemoryAgent, clip, image_parts, prefix_grid

FOLD_INSTRUCTION = (
    "Memory folding at {t} s. Describe the scene in the frames above: the room, the salient "
    "objects with their colours, where each is relative to the camera and to each other, and "
    "how the camera moved. Then merge this description with the previous memory into one "
    "updated memory of everything seen so far, keeping the spatially decisive facts (object "
    "identities, relative positions, landmarks, rooms visited) and dropping repetition. Reply "
    "with the updated memory only, in at most {words} words."
)


def fold_window(fps: float, n_q: int, t: float, window_s: float, dense_fps: float) -> list[int]:
    """Grid frames in (t − window, t] (at most frame ``n_q``): what a fold at t, or a query at
    t, sees densely.  The grid is every ``round(fps / dense_fps)``-th frame from frame 0."""
    n_t = min(math.floor(t * fps + 1e-9), n_q)
    step = max(1, round(fps / dense_fps))
    after = math.floor((t - window_s) * fps + 1e-9) + 1  # first index > t − W
    first = max(0, -(-after // step) * step)  # onto the grid (multiples of step)
    return list(range(first, n_t + 1, step))  # O(window), whatever the stream length


PROSE_MEMORY_CHARS = 1500  # a prose memory is clipped to this many characters
PROSE_FOLD_TOKENS = 384  # a prose fold call's cap (when the run sets one)


@dataclass
class Fold:
    """One folding step: the memory after it and the single frame it keeps."""

    time: float  # fold time t (frames up to t were summarised)
    frame_time: float
    jpeg: bytes
    memory: str
    error: str | None = None  # the fold call failed: ``memory`` is the previous one


@dataclass
class FoldState:
    """One video's folding memory."""

    folds: list[Fold] = field(default_factory=list)  # the kept folds, oldest first
    done: int = 0  # folds made so far: fold j happened at j·K
    memory: str = ""  # the latest memory text
    errors: int = 0
    malformed: int = 0  # JSON memory: replies with no usable memory (also counted in errors)
    # Runs [first, last] of fold numbers whose call succeeded: what the merged memory carries.
    merged: list[list[int]] = field(default_factory=list)


class FoldingAgent(ModelMemoryAgent):
    """``--agent folding``: dense recent frames plus model-written folded memory."""

    name: ClassVar[str] = "folding"

    def __init__(
        self,
        *,
        params: GenerationParams | None = None,
        variant: str = "default",
        fold_every: float = FOLD_EVERY_S,
        window_s: float = 10.0,
        dense_fps: float = 1.0,
        max_folds: int = 8,
        memory_chars: int | None = None,  # prose 1,500; JSON fold_memory.JSON_MEMORY_CHARS
        fold_tokens: int | None = None,  # prose 384; JSON fold_memory.JSON_FOLD_TOKENS
        memory_format: str = "prose",
    ):
        if memory_chars is None:
            memory_chars = fm.JSON_MEMORY_CHARS if memory_format == "json" else PROSE_MEMORY_CHARS
        problems = []
        if not (math.isfinite(fold_every) and fold_every > 0):
            problems.append(f"--fold-every must be a positive number of seconds, got {fold_every}")
        if not window_s > 0 or not dense_fps > 0:
            problems.append("the dense window and its frame rate must be positive")
        if max_folds < 1 or memory_chars < 16:
            problems.append("keep at least one fold and 16 characters of memory")
        if memory_format not in fm.MEMORY_FORMATS:
            known = ", ".join(fm.MEMORY_FORMATS)
            problems.append(f"--fold-memory must be one of {known}, got {memory_format!r}")
        if problems:
            raise InputError("; ".join(problems))
        super().__init__(params, variant)
        self.fold_every = float(fold_every)
        self.window_s = float(window_s)
        self.dense_fps = float(dense_fps)
        self.max_folds = max_folds
        self.memory_chars = memory_chars
        json_mode = memory_format == "json"
        self.fold_tokens = fold_tokens or (fm.JSON_FOLD_TOKENS if json_mode else PROSE_FOLD_TOKENS)
        self.memory_format = memory_format
        self.state = FoldState()  # this video's memory

    @classmethod
    def from_options(cls, options: AgentOptions) -> FoldingAgent:
        return cls(
            params=options.params,
            variant=options.variant,
            fold_every=options.fold_every,
            memory_format=options.fold_memory,
        )

    @property
    def label(self) -> str:
        memory = ",memory=json" if self.memory_format == "json" else ""
        return (
            f"folding[K={self.fold_every:g}s,window={self.window_s:g}s@{self.dense_fps:g}fps"
            f"{memory}]"
        )

    def frames_needed(self, item: Item, query: QueryPoint, stream: VideoStream) -> Sequence[int]:
        """Every frame of the 1 fps grid up to t_q: folds summarise the whole prefix."""
        return prefix_grid(stream, query, self.dense_fps)

    def reset(self, stream: VideoStream) -> None:
        self.state = FoldState()

    def fold_times(self, t_q: float) -> list[float]:
        """Fold times K, 2K, … up to t_q (inclusive)."""
        return [self._fold_time(j) for j in range(1, self.folds_due(t_q) + 1)]

    def folds_due(self, t_q: float) -> int:
        """How many folds are due by t_q (without listing them: O(1) at any stream length)."""
        return math.floor(t_q / self.fold_every + 1e-9)

    def _fold_time(self, j: int) -> float:
        return round(j * self.fold_every, 6)

    def window(self, view: PrefixView, t: float) -> list[int]:
        """Grid frames in (t − window, t]: what a fold at t, or a query at t, sees densely."""
        return fold_window(view.fps, view.n_q, t, self.window_s, self.dense_fps)

    async def _fold_up_to(self, view: PrefixView | None, t_q: float, backend: Backend) -> None:
        """Make every fold due by t_q that this video has not made yet, in time order."""
        due = self.folds_due(t_q)
        if self.state.done > due:  # an earlier query after a later one: refold from scratch
            self.state = FoldState()
        if view is None:
            return
        while self.state.done < due:  # _fold advances done, or raises
            await self._fold(self.state, view, self._fold_time(self.state.done + 1), backend)

    async def _fold(self, st: FoldState, view: PrefixView, t: float, backend: Backend) -> None:
        frames = view.get(self.window(view, t))
        if not frames:
            st.done += 1
            return
        if self.memory_format == "json":  # frames, then previous memory and the layout asked for
            parts: list[Part] = image_parts(frames)
            parts.append(TextPart(fm.fold_instruction(t, st.memory or None, self.memory_chars)))
        else:
            previous = st.memory or "(empty: nothing folded yet)"
            parts = [TextPart(f"Previous memory: {previous}")]
            parts += image_parts(frames)
            words = max(20, self.memory_chars // 7)
            parts.append(TextPart(FOLD_INSTRUCTION.format(t=f"{t:g}", words=words)))
        request = self.memory_request(parts, t, self.fold_tokens)
        response = await backend.generate(request)
        if response.error is not None:
            # Not folded: the memory stays as it was and this fold is made again by the next
            # query (or by --retry-errors); the query waiting on it is recorded as an error.
            st.errors += 1
            raise MemoryCallError(f"memory fold at {t:g} s failed: {response.error}")
        st.done += 1
        error = None
        memory = self._read_memory(response.text, t)
        if memory is None:  # malformed JSON memory: the memory stays as it was
            error = "malformed memory"
            st.errors += 1
            st.malformed += 1
        elif memory:
            st.memory = memory
            if st.merged and st.merged[-1][1] == st.done - 1:
                st.merged[-1][1] = st.done
            else:
                st.merged.append([st.done, st.done])
        else:  # the model answered with nothing: the memory stays as it was
            error = "empty fold summary"
            st.errors += 1
        kept = frames[-1]
        st.folds.append(Fold(t, kept.time, kept.jpeg, st.memory, error))
        if len(st.folds) > self.max_folds:
            del st.folds[0]

    def _read_memory(self, text: str, t: float) -> str | None:
        """The memory text a fold reply gives: prose clipped to ``memory_chars``; JSON parsed,
        canonicalised and fitted to ``memory_chars`` (``None`` when malformed)."""
        if self.memory_format != "json":
            return clip(text, self.memory_chars) if text.strip() else ""
        parsed = fm.parse_memory(text, t)
        if parsed.memory is None:
            return None
        return fm.render(fm.fit(parsed.memory, self.memory_chars))

    async def decide(self, ctx: QueryContext) -> Ask:
        item, query, view = ctx.item, ctx.query, ctx.view
        assert ctx.backend is not None, "folding writes its memory through the run's backend"
        await self._fold_up_to(view, query.time, ctx.backend)
        t_q = float(query.time)
        st = self.state
        folds = [f for f in st.folds if f.time <= t_q + 1e-9]
        if len(folds) != len(st.folds) or st.done > self.folds_due(t_q):
            raise CausalityError(
                f"folding memory of {item.video} holds folds after t={t_q} for item {item.id}"
            )
        parts: list[Part] = []
        if folds:
            parts.append(
                TextPart(
                    "Long-term memory, folded every "
                    f"{self.fold_every:g} s (one kept frame per fold):"
                )
            )
        for f in folds:
            parts.append(TextPart(f"Frame kept at the fold at {f.time:g} s:"))
            parts.append(ImagePart(jpeg=f.jpeg, time=f.frame_time))
            parts.append(TextPart(f"Memory at {f.time:g} s: {f.memory or '(none)'}"))
        dense = view.get(self.window(view, t_q)) if view is not None else []
        if dense:
            parts.append(TextPart(f"Recent frames (last {self.window_s:g} s):"))
            parts += image_parts(dense)
        request = self.answer_request(ctx, parts, shown=bool(folds or dense))
        return Ask(request, self._diagnostics(st, folds, dense, query))

    def _diagnostics(
        self, st: FoldState, folds: list[Fold], dense: Sequence[Any], query: QueryPoint
    ) -> Diagnostics:
        """CR / ER: a second reached the model when a frame from it was shown, or when it lies
        in the window of a fold whose summary the request's merged memory carries (every fold
        whose call succeeded, up to the last fold shown; a failed fold added nothing).

        Counted over intervals of seconds, never second by second: the cost per query stays
        flat however long the stream (the folded seconds of an hour are one interval)."""
        t_q = float(query.time)
        n = max(1, math.ceil(t_q - 1e-9))  # the prefix's 1-s bins (video.coverage)
        shown = retained_bins({f.time for f in dense} | {f.frame_time for f in folds}, t_q)
        spans = self._folded_bins(st, folds[-1].time, n) if folds else []
        starts = [a for a, _ in spans]

        def folded(b: int) -> bool:
            k = bisect.bisect_right(starts, b) - 1
            return k >= 0 and b <= spans[k][1]

        reached = sum(b - a + 1 for a, b in spans) + sum(1 for b in shown if not folded(b))
        clipped = [(s, min(e, t_q)) for s, e in query.evidence if s <= t_q]
        wanted = evidence_bins(clipped)
        recall = sum(1 for b in wanted if b in shown or folded(b)) / len(wanted) if wanted else None
        detail = {
            "folds": st.done,
            "folds_shown": len(folds),
            "fold_errors": st.errors,
            "fold_malformed": st.malformed,
            "dense_frames": len(dense),
            "memory_chars": len(st.memory),
        }
        return Diagnostics(reached / n, recall, detail)

    def _folded_bins(self, st: FoldState, last: float, n: int) -> list[tuple[int, int]]:
        """Disjoint, sorted 1-s bin intervals covered by the windows (jK − W, jK] of the
        successful folds j with jK ≤ ``last``: one interval per run of successful folds when
        the windows tile the stream (W ≥ K, grid step ≤ 1 s, the defaults)."""
        k, w, step = self.fold_every, self.window_s, 1.0 / self.dense_fps
        j_last = math.floor(last / k + 1e-9)
        grid: list[tuple[int, int]] = []  # inclusive ranges of grid indices
        for first, final in st.merged:
            final = min(final, j_last)
            runs = [(first, final)] if w >= k else [(j, j) for j in range(first, final + 1)]
            for a, b in runs:
                lo = max(0, math.floor((a * k - w) / step + 1e-9) + 1)  # first grid time > aK − W
                hi = math.floor(b * k / step + 1e-9)
                if lo <= hi:
                    grid.append((lo, hi))
        bins: list[tuple[int, int]] = []
        for lo, hi in grid:
            if step <= 1.0 + 1e-12:  # consecutive grid times fall in the same or the next bin
                pieces = [(int(lo * step + 1e-9), int(hi * step + 1e-9))]
            else:
                pieces = [(int(g * step + 1e-9),) * 2 for g in range(lo, hi + 1)]
            bins += [(min(a, n - 1), min(b, n - 1)) for a, b in pieces]
        merged: list[tuple[int, int]] = []
        for a, b in sorted(bins):
            if merged and a <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        return merged
