"""Driving one agent by hand, as the runner does, for tests that look at single decisions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from streamspatial.agents.contract import Agent, Decision, QueryContext, VideoStream


def stream_of(item: Any, view: Any) -> VideoStream:
    """The stream a view cuts: its rate and length (a stand-in view may lack ``n_frames``)."""
    if view is None:
        return VideoStream(item.video, Path(item.video), 0.0, 0)
    n_frames = getattr(view, "n_frames", None) or view.n_q + 1
    return VideoStream(item.video, Path(item.video), float(view.fps), int(n_frames))


def decide(
    agent: Agent,
    view: Any,
    item: Any,
    query: Any,
    adapter: Any,
    backend: Any = None,
    *,
    prior_answers: dict[str, str] | None = None,
) -> Decision:
    """``agent.decide`` for one query point, with the frames its ``frames_needed`` gives."""
    stream = stream_of(item, view)
    frames = tuple(agent.frames_needed(item, query, stream)) if view is not None else ()
    ctx = QueryContext(
        item=item,
        query=query,
        stream=stream,
        view=view,
        adapter=adapter,
        backend=backend,
        frames=frames,
        prior_answers=prior_answers,
    )
    return asyncio.run(agent.decide(ctx))
