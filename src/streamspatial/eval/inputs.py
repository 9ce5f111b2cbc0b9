"""How a run shows frames to its model: as images or one video, and at what size.

``--frames auto`` (the default) follows the model family's recipe
(:mod:`streamspatial.models.recipes`): the Qwen-VL family's authors feed a frame sequence as
one video (frames merge in pairs into temporal patches, and the model reads their times), so
their frames go as a video when the agent can send one; every other model gets images.
``--frames video`` asks for a video and is refused in one line where none can be sent (an
agent that interleaves its own text with frames, a policy whose frames are unevenly spaced);
``--frames images`` always sends images.

The frame size is ``--frame-size`` when given (exactly that shorter side, no pixel cap), else
the recipe's shorter side and per-frame pixel cap (OVO-S-Bench App. G.3), else 448 px.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamspatial.agents.contract import Agent
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.config import DEFAULT_FRAME_SIZE, RunConfig
from streamspatial.models.recipes import ModelRecipe

IMAGES, VIDEO = "images", "video"


@dataclass(frozen=True)
class ModelInputs:
    """What the run settled: ``frames`` (images | video), the frames' size and pixel cap, the
    recipe that said so (None: the project's defaults)."""

    frames: str
    frame_size: int
    max_pixels: int | None
    recipe: str | None

    def record(self, video_metadata: bool) -> dict[str, Any]:
        """``run.json``'s ``inputs``."""
        out: dict[str, Any] = {"frames": self.frames, "frame_size": self.frame_size,
                               "max_pixels": self.max_pixels, "recipe": self.recipe}  # fmt: skip
        if self.frames == VIDEO:
            out["video_metadata"] = video_metadata
        return out

    def resolved(self, video_metadata: bool) -> dict[str, Any]:
        """The part of :meth:`record` that decides the predictions (the configuration hash)."""
        out: dict[str, Any] = {"frame_size": self.frame_size}
        if self.max_pixels is not None:
            out["max_pixels"] = self.max_pixels
        if self.frames == VIDEO:
            out.update(frames=VIDEO, video_metadata=video_metadata)
        return out


def resolve_inputs(cfg: RunConfig, recipe: ModelRecipe | None, agent: Agent) -> ModelInputs:
    """Frames mode and size for ``cfg`` (see the module); ``agent`` is one the run's factory
    made, asked whether it can send a video."""
    refusal = agent.video_refusal()
    if cfg.frames == VIDEO and refusal is not None:
        raise StreamspatialError(
            f"--frames video: {refusal}; a video needs evenly spaced frames from --agent "
            "policy (uniform-N, nearest-N@Ffps, window-K@Ffps/Ws, single@query): use --frames "
            "images or auto"
        )
    if cfg.frames == "auto":
        frames = VIDEO if recipe is not None and recipe.video and refusal is None else IMAGES
    else:
        frames = cfg.frames
    if cfg.frame_size is not None:
        size, cap = cfg.frame_size, None
    else:
        size = (recipe.frame_size if recipe is not None else None) or DEFAULT_FRAME_SIZE
        cap = recipe.max_pixels if recipe is not None else None
    return ModelInputs(frames, size, cap, recipe.family if recipe else None)


__all__ = ["IMAGES", "VIDEO", "ModelInputs", "resolve_inputs"]
