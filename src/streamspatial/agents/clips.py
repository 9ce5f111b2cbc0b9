"""Items made of several clips and reference images (MMSI-Video-Bench): what each shows, where.

The benchmark fixes the frames (:meth:`~streamspatial.bench.base.BenchmarkAdapter.clips`): a
frame budget spread over the clips in proportion, then every reference image.  The prompt's
placeholders say where they go, and the request is the prompt's text cut at them with the
images in between; the system prompt goes first.

Two readings of the placeholders:

* ``paper``: each ``<video>`` takes its own clip's frames and each ``<image>`` the next
  reference image, wherever it stands;
* ``official`` (``models/api.py``): each ``<video>`` becomes as many ``<image>`` s as its clip
  has frames, and the placeholders, in text order, take the images of the list *frames of every
  clip, then the reference images*: a reference image written before a clip gets that clip's
  first frame, as the official request does.

No frame captions: the frames' stream times are positions in the clips, not seconds.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from streamspatial.bench.base import Clips
from streamspatial.models.types import GenerationParams, ImagePart, ModelRequest, Part, TextPart

from .contract import QueryContext

if TYPE_CHECKING:
    from streamspatial.video.policies import PolicySpec

DEFAULT_BUDGET = 50  # the official Uniform-50 setting


def clip_budget(spec: PolicySpec) -> int:
    """The frames spread over the clips: a uniform policy's N, else the official 50."""
    return spec.n if spec.kind == "uniform" and spec.n > 0 else DEFAULT_BUDGET


def clips_frames(clips: Clips, budget: int) -> list[int]:
    """Every stream index the item shows: its clips' sampled frames and its references."""
    return sorted({i for clip in clips.frames(budget) for i in clip} | set(clips.ref_indices()))


def slots(clips: Clips, budget: int, prompt: str, *, official: bool) -> list[str | int]:
    """The prompt as text pieces and stream indices, in order."""
    per_clip = clips.frames(budget)
    refs = clips.ref_indices()
    tags = f"({re.escape(clips.video_tag)}|{re.escape(clips.image_tag)})"
    pieces = re.split(tags, prompt)
    out: list[str | int] = []
    queue = [i for clip in per_clip for i in clip] + refs  # the official image list
    videos = images = 0
    for piece in pieces:
        if piece == clips.video_tag:
            shown = per_clip[videos] if videos < len(per_clip) else []
            videos += 1
            if official:
                out += [queue.pop(0) for _ in shown if queue]
            else:
                out += shown
        elif piece == clips.image_tag:
            if official:
                out += [queue.pop(0)] if queue else []
            elif images < len(refs):
                out.append(refs[images])
            images += 1
        elif piece:
            out.append(piece)
    return out


def clips_request(
    ctx: QueryContext, clips: Clips, budget: int, params: GenerationParams, prompt: str,
    *, official: bool,
) -> ModelRequest:  # fmt: skip
    """The one request of a clips item: text and images as :func:`slots` lays them out."""
    assert ctx.view is not None
    frames = {f.index: f for f in ctx.view.get(ctx.frames)}
    parts: list[Part] = []
    for slot in slots(clips, budget, prompt, official=official):
        if isinstance(slot, str):
            parts.append(TextPart(slot))
        else:
            f = frames[slot]
            parts.append(ImagePart(jpeg=f.jpeg, time=f.time))
    system = ctx.adapter.system_prompt(ctx.item)
    return ctx.request(parts, params=params, system=system)


__all__ = ["DEFAULT_BUDGET", "clip_budget", "clips_frames", "clips_request", "slots"]
