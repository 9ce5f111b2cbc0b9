"""Error taxonomy of wrong answers (OVO-S-Bench App. C): a judge model labels each failure.

For every wrong answer of a run, the judge sees the question, the options, the truth, the
prediction, the model's trace (head 3,000 + tail 1,500 characters beyond 5,000) and 4–6
frames at the midpoints of the query's evidence intervals, and returns one of five labels:

* T1a no-conclusion error, T1b non-visual error (tier 1, process-level);
* T2a visual-content error, T2b direction error, T2c temporal-binding error (tier 2).

Each query is judged three times; the label is the majority (≥ 2 votes), and queries without
one are *disagreements*, counted and left out of the distribution.  Traces cut off by the
thinking budget (``<think>`` never closed) are T1a without a call.  A second judge gives
Cohen's κ over the queries both judges labelled.  Evidence frames are all at or before the
query time (they come from the annotated evidence, which precedes it), so the judge sees
nothing the model could not have seen.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from streamspatial.core.errors import StreamspatialError
from streamspatial.core.schema import Item, QueryPoint
from streamspatial.eval.results import Record, iter_records, read_run_json
from streamspatial.grading.extract import strip_thinking
from streamspatial.models.requests import item_request
from streamspatial.models.types import (
    Backend,
    GenerationParams,
    ImagePart,
    ModelRequest,
    TextPart,
)

LABELS: dict[str, str] = {
    "T1a": "no-conclusion",
    "T1b": "non-visual",
    "T2a": "visual-content",
    "T2b": "direction",
    "T2c": "temporal-binding",
}
VOTES = 3
TAXONOMY_JSON = "taxonomy.json"  # written into the run folder; report --html reads it
TRACE_LIMIT, TRACE_HEAD, TRACE_TAIL = 5000, 3000, 1500
FRAMES_MIN, FRAMES_MAX = 4, 6
FRAME_SHORT_SIDE = 512

SYSTEM_PROMPT = """You classify why a video-language model answered a spatial question wrongly.
Choose exactly one label:
T1a no-conclusion error: the reasoning never reaches a conclusion (loops, gives up, runs out).
T1b non-visual error: the answer rests on world priors or guesses, not on what the frames show.
T2a visual-content error: the reasoning cites the frames but misperceives or misidentifies
    objects, counts or layout.
T2b direction error: the reasoning states a direction or relative position that is inverted or
    wrong, with explicit textual evidence of the wrong direction.
T2c temporal-binding error: a correct spatial fact is bound to the wrong moment of the video.
Rules: tier 1 (T1a, T1b) takes precedence when both tiers apply; prior phrases without visual
citations are T1b; T2b needs explicit textual evidence of the wrong direction.
Reply with a JSON object only: {"label": "<code>", "reason": "<one sentence>"}."""


def shorten_trace(trace: str) -> str:
    """Head 3,000 + tail 1,500 characters of a trace longer than 5,000 (App. C.1)."""
    if len(trace) <= TRACE_LIMIT:
        return trace
    return trace[:TRACE_HEAD] + "\n[…]\n" + trace[-TRACE_TAIL:]


def _spread(values: Sequence[float], k: int) -> list[float]:
    """``k`` of ``values`` (sorted), evenly spaced over the list, first and last kept."""
    if len(values) <= k:
        return list(values)
    step = (len(values) - 1) / (k - 1)
    return [values[round(i * step)] for i in range(k)]


def evidence_times(
    query: QueryPoint, k_min: int = FRAMES_MIN, k_max: int = FRAMES_MAX
) -> list[float]:
    """4–6 frame times at the midpoints of the evidence intervals, never after t_q.

    More than ``k_max`` intervals: ``k_max`` midpoints spread evenly over them.  Fewer than
    ``k_min`` midpoints: intervals are cut into 2, 3, … equal parts (the parts' midpoints
    added) until there are ``k_min`` times; point evidence that still leaves too few, or no
    evidence at all, is topped up with times spread evenly over the prefix [0, t_q].
    """
    t_q = float(query.time)
    spans = sorted((float(s), min(float(e), t_q)) for s, e in query.evidence if s <= t_q)
    times = {round((s + e) / 2, 6) for s, e in spans}
    if len(times) > k_max:
        return _spread(sorted(times), k_max)
    parts = 2
    while len(times) < k_min and any(e > s for s, e in spans) and parts <= 16:
        for s, e in spans:
            times.update(round(s + (e - s) * (j + 0.5) / parts, 6) for j in range(parts))
        parts += 1
    prefix = [round(t_q * (i + 0.5) / k_min, 6) for i in range(k_min)]
    for t in prefix:
        if len(times) >= k_min:
            break
        times.add(t)
    return _spread(sorted(times), k_max)


def is_wrong(rec: Record) -> bool:
    """A scored answer that is not (fully) right; failed requests are not answers."""
    return rec.error is None and (not rec.valid or rec.score is None or rec.score < 1.0)


def parse_label(text: str) -> str | None:
    """The label of a judge reply (JSON ``label`` field, a code or a class name), else None."""
    candidates = [text]
    try:
        data = json.loads(text[text.find("{") : text.rfind("}") + 1])
        if isinstance(data, dict) and data.get("label") is not None:
            candidates = [str(data["label"])]
    except ValueError:
        pass
    for cand in candidates:
        for code, name in LABELS.items():
            if re.search(rf"\b{code}\b", cand, re.IGNORECASE) or name in cand.lower():
                return code
    return None


def majority(votes: Sequence[str | None]) -> str | None:
    """The label with ≥ 2 of 3 votes (a strict majority of the votes cast), else None."""
    counts = Counter(v for v in votes if v is not None)
    if not counts:
        return None
    label, n = counts.most_common(1)[0]
    return label if n * 2 > len(votes) else None


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's κ of two label sequences; None when empty or when chance agreement is 1."""
    n = len(a)
    if n == 0 or n != len(b):
        return None
    observed = sum(1 for x, y in zip(a, b, strict=True) if x == y) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in set(ca) | set(cb)) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


@dataclass
class Judged:
    """One wrong answer and what the judge(s) said about it."""

    item_id: str
    query_index: int
    level: str | None
    status: str  # labelled | truncated | disagreement
    label: str | None
    votes: list[str | None] = field(default_factory=list)
    label2: str | None = None
    votes2: list[str | None] = field(default_factory=list)
    frame_times: list[float] = field(default_factory=list)


def build_request(
    item: Item,
    query: QueryPoint,
    rec: Record,
    frames: Sequence[tuple[float, bytes]],
    params: GenerationParams,
) -> ModelRequest:
    options = "\n".join(f"{o.letter}. {o.text or ''}" for o in item.options) or "(numeric answer)"
    text = (
        f"Question (asked at query time {float(query.time):g} s): {item.question}\n"
        f"Options:\n{options}\n"
        f"Ground truth: {query.answer}\nPredicted: {rec.extracted}\n"
        f"Trace:\n{shorten_trace(rec.raw_output)}\nEvidence frames:"
    )
    parts: list[Any] = [TextPart(text)]
    parts += [ImagePart(jpeg=data, time=t) for t, data in frames]
    return item_request(item, query.time, parts, system=SYSTEM_PROMPT, params=params)


FrameReader = Callable[[Item, Sequence[float]], list[tuple[float, bytes]]]


def video_frame_reader(adapter: Any, videos: Path) -> FrameReader:
    """JPEG frames (512 px short side) of an item's video at given times."""
    from streamspatial.video.cache import ResizeSpec, encode_jpeg
    from streamspatial.video.sources import open_source

    spec = ResizeSpec(short_side=FRAME_SHORT_SIDE)

    def read(item: Item, times: Sequence[float]) -> list[tuple[float, bytes]]:
        source = open_source(adapter.video_path(item, videos))
        last = source.n_frames - 1
        wanted = sorted({min(last, max(0, int(t * source.fps + 1e-9))) for t in times})
        return [(f.time, encode_jpeg(f.image, spec)) for f in source.read(wanted)]

    return read


async def _votes(backend: Backend, request: ModelRequest, n: int) -> list[str | None]:
    replies = await asyncio.gather(*(backend.generate(request) for _ in range(n)))
    return [None if r.error else parse_label(r.text) for r in replies]


async def judge_run(
    records: Sequence[Record],
    items: dict[str, Item],
    read_frames: FrameReader,
    judges: Sequence[Backend],
    params: GenerationParams,
    *,
    concurrency: int = 8,
    on_done: Callable[[], None] | None = None,
) -> list[Judged]:
    """Judge every wrong answer with each judge (3 votes each); truncated traces need no call."""
    gate = asyncio.Semaphore(concurrency)

    async def one(rec: Record) -> Judged:
        item = items[rec.item_id]
        query = next(q for q in item.queries if q.index == rec.query_index)
        level = rec.task.get("level")
        level = None if level is None else str(level)
        _, truncated = strip_thinking(rec.raw_output)
        if truncated:
            out = Judged(rec.item_id, rec.query_index, level, "truncated", "T1a")
            if len(judges) > 1:
                out.label2 = "T1a"
            if on_done:
                on_done()
            return out
        async with gate:
            times = evidence_times(query)
            frames = await asyncio.to_thread(read_frames, item, times)
            request = build_request(item, query, rec, frames, params)
            all_votes = [await _votes(j, request, VOTES) for j in judges]
        label = majority(all_votes[0])
        out = Judged(
            rec.item_id,
            rec.query_index,
            level,
            "labelled" if label else "disagreement",
            label,
            all_votes[0],
            frame_times=[t for t, _ in frames],
        )
        if len(judges) > 1:
            out.label2, out.votes2 = majority(all_votes[1]), all_votes[1]
        if on_done:
            on_done()
        return out

    return list(await asyncio.gather(*(one(r) for r in records)))


def summarise(judged: Sequence[Judged], judges: Sequence[str]) -> dict[str, Any]:
    """Counts, the per-level label distribution (judge 1) and κ between two judges."""
    dist: dict[str, dict[str, int]] = defaultdict(lambda: dict.fromkeys(LABELS, 0))
    for j in judged:
        if j.label is not None:
            dist[j.level or "all"][j.label] += 1
    # κ over the queries both judges labelled; truncated traces were never judged.
    both = [(j.label, j.label2) for j in judged if j.status == "labelled" and j.label2]
    kappa = cohen_kappa([a for a, _ in both], [b for _, b in both]) if len(judges) > 1 else None
    agreement = (sum(1 for a, b in both if a == b) / len(both)) if both else None
    return {
        "labels": list(LABELS),
        "label_names": LABELS,
        "judges": list(judges),
        "votes": VOTES,
        "wrong": len(judged),
        "labelled": sum(1 for j in judged if j.status == "labelled"),
        "truncated": sum(1 for j in judged if j.status == "truncated"),
        "disagreements": sum(1 for j in judged if j.status == "disagreement"),
        "kappa": kappa,
        "agreement": agreement if len(judges) > 1 else None,
        "kappa_n": len(both) if len(judges) > 1 else None,
        "distribution": {k: dist[k] for k in sorted(dist)},
        "queries": [asdict(j) for j in judged],
    }


def load_run_items(run_dir: Path, videos: Path | None) -> tuple[Any, dict[str, Item], Path]:
    """The benchmark adapter and items a run was made from, and its videos folder."""
    from streamspatial.bench.registry import load_benchmark

    cfg = read_run_json(run_dir).get("config", {})
    if not cfg.get("data"):
        raise StreamspatialError(f"{run_dir}: run.json names no benchmark file")
    folder = videos or Path(cfg.get("videos", ""))
    adapter, items = load_benchmark(Path(cfg["data"]), cfg.get("format", "auto"), videos=None)
    return adapter, {it.id: it for it in items}, folder


def wrong_records(run_dir: Path) -> list[Record]:
    return sorted(
        (r for r in iter_records(run_dir) if is_wrong(r)), key=lambda r: (r.item_id, r.query_index)
    )


__all__ = [
    "LABELS",
    "SYSTEM_PROMPT",
    "TAXONOMY_JSON",
    "Judged",
    "cohen_kappa",
    "evidence_times",
    "judge_run",
    "load_run_items",
    "majority",
    "parse_label",
    "shorten_trace",
    "summarise",
    "video_frame_reader",
    "wrong_records",
]
