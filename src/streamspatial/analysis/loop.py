"""Loop concatenation (VCBench App. 0.A.4): a long periodic-action video from one annotated cycle.

Long periodic-action videos are scarce, so VCBench's E2-Periodic items repeat one seamless
cycle [start, end) of a short clip until the video is 2–3 minutes long.  Counting needs exact
cycle times, and repeating a cycle whose length is not a whole number of frames would drift;
so the cycle is snapped to frames (start frame ``round(start·fps)``, end frame
``round(end·fps)``, exclusive: the end looks like the start) and every timestamp is computed
from integer frame counts, ``k · frames_per_cycle / fps``, with no accumulated error.

Split points inside the cycle (a cycle of three triangles drawn one after another) make each
sub-action a counted occurrence.  The result is a VCBench data-layout item whose query points
sit in the middle of cycles (never on a boundary, so a count is never ambiguous) and whose
answers are the occurrences completed by then.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from streamspatial.analysis.h264 import even, write_h264
from streamspatial.core.errors import InputError, Problem


@dataclass(frozen=True)
class LoopPlan:
    """Where the cycle lies in the source and where every occurrence lands in the output."""

    rate: Fraction
    start_frame: int
    end_frame: int  # exclusive
    split_frames: tuple[int, ...]  # offsets from start_frame, strictly inside the cycle
    cycles: int

    @property
    def frames_per_cycle(self) -> int:
        return self.end_frame - self.start_frame

    def time(self, frames: int) -> float:
        return float(Fraction(frames) / self.rate)

    @property
    def cycle_period(self) -> float:
        return self.time(self.frames_per_cycle)

    @property
    def duration(self) -> float:
        return self.time(self.frames_per_cycle * self.cycles)

    def occurrences(self) -> list[tuple[float, float]]:
        """Every counted occurrence as (start, end) in output seconds, in order."""
        bounds = [0, *self.split_frames, self.frames_per_cycle]
        out = []
        for k in range(self.cycles):
            base = k * self.frames_per_cycle
            for a, b in itertools.pairwise(bounds):
                out.append((self.time(base + a), self.time(base + b)))
        return out

    def cycle_starts(self) -> list[float]:
        return [self.time(k * self.frames_per_cycle) for k in range(self.cycles)]

    def query_times(self, n: int) -> list[float]:
        """``n`` query times in the middle of evenly spread cycles, the last cycle included."""
        n = max(1, min(n, self.cycles))
        picks = sorted({round((i + 1) * self.cycles / n) for i in range(n)})
        half = Fraction(self.frames_per_cycle, 2)
        return [float(((k - 1) * self.frames_per_cycle + half) / self.rate) for k in picks]

    def count_at(self, t: float) -> int:
        return sum(1 for _, end in self.occurrences() if end <= t + 1e-9)


def plan_loop(
    rate: Fraction,
    n_frames: int,
    start: float,
    end: float,
    *,
    splits: tuple[float, ...] = (),
    cycles: int | None = None,
    seconds: float | None = None,
    file: str = "",
) -> LoopPlan:
    """Snap the annotated loop to frames and decide how many cycles to repeat."""

    def bad(field: str, expected: str) -> InputError:
        return InputError(Problem(file=file, field=field, expected=expected))

    s, e = round(start * rate), round(end * rate)
    if not 0 <= s < e <= n_frames:
        raise bad("start/end", f"expected 0 ≤ start < end ≤ {float(n_frames / rate):g} s "
                               f"(at least one frame), got [{start}, {end}]")  # fmt: skip
    offsets = []
    for t in sorted(splits):
        f = round(t * rate) - s
        if not 0 < f < e - s:
            raise bad("split", f"expected split points strictly inside ({start}, {end}), got {t}")
        offsets.append(f)
    if len(set(offsets)) != len(offsets):
        raise bad("split", "expected distinct split points (two fall on the same frame)")
    period = Fraction(e - s) / rate
    if cycles is None:
        if seconds is None or seconds <= 0:
            raise bad("cycles", "expected --cycles N or --seconds T (> 0)")
        cycles = max(1, math.ceil(Fraction(seconds) / period))
    if cycles < 1:
        raise bad("cycles", f"expected at least one cycle, got {cycles}")
    return LoopPlan(rate, s, e, tuple(offsets), cycles)


def write_loop_video(src: Path, dst: Path, plan: LoopPlan) -> int:
    """Decode the cycle once and encode it ``plan.cycles`` times at the source frame rate;
    frame ``i`` of the output has pts ``i`` in time base ``1/rate``.  Returns frames written."""
    import av

    frames = []
    with av.open(str(src)) as inp:
        stream = inp.streams.video[0]
        for index, frame in enumerate(inp.decode(stream)):
            if index >= plan.end_frame:
                break
            if index >= plan.start_frame:
                frames.append(frame.to_ndarray(format="rgb24"))
    if len(frames) != plan.frames_per_cycle:
        raise InputError(Problem(file=str(src), field="end",
                                 expected=f"expected {plan.frames_per_cycle} frames in the "
                                          f"cycle, the video has {len(frames)}"))  # fmt: skip
    width, height = even(frames[0].shape[1], frames[0].shape[0])

    def cycles():
        for i, image in enumerate(itertools.chain.from_iterable([frames] * plan.cycles)):
            frame = av.VideoFrame.from_ndarray(image[:height, :width], format="rgb24")
            frame.pts = i
            frame.time_base = 1 / plan.rate
            yield frame

    return write_h264(dst, cycles(), rate=plan.rate, size=(width, height), time_base=1 / plan.rate)


def loop_record(
    plan: LoopPlan, item_id: str, source: str, video: str, question: str, queries: int
) -> dict[str, Any]:
    """The VCBench data-layout line of the looped video's E2-Periodic question."""
    occ = plan.occurrences()
    times = plan.query_times(queries)
    return {
        "id": item_id,
        "source_dataset": source,
        "video_path": video,
        "question": question,
        "counting_type": "E2",
        "counting_subtype": "E2-Periodic",
        "occurrence_times": {"start": [s for s, _ in occ], "end": [e for _, e in occ]},
        "query_points": {"time": times, "count": [plan.count_at(t) for t in times]},
    }


__all__ = ["LoopPlan", "loop_record", "plan_loop", "write_loop_video"]
