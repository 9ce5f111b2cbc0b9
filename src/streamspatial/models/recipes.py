"""Model input recipes: how each model family's authors feed it frames and decode it.

OVO-S-Bench runs "all other models locally with their published defaults" (§4, App. G): the
frame size and per-frame pixel cap of the model's training recipe (G.3), its video path, and,
for reasoning rows, its published decoding (Table 14).  Every such constant lives here, once,
with the document it comes from; nothing else branches on a model's name.

A family is matched by the model's name (``openai:Qwen/Qwen2.5-VL-7B-Instruct``, a served name,
a Hub id) or, for a local ``hf:`` folder, by its ``config.json`` ``model_type``.  A model no
recipe matches gets the project's defaults (frames as images, ``--frame-size`` 448) and the
benchmark's decoding.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from streamspatial.models.types import ModelSpec

# How a family reads the frames' times when frames go as one video.
TIMES_NONE = "none"  # temporal ids count frames (Qwen2-VL)
TIMES_FPS = "fps"  # temporal ids scaled to seconds through the frame rate (Qwen2.5-VL)
TIMES_TEXT = "timestamps"  # "<t seconds>" written before each temporal patch (Qwen3-VL)

_QWEN2_VIDEO = (
    "transformers Qwen2VLVideoProcessor (as qwen-vl-utils): frames of 128·28² to 768·28² px, "
    "4–768 frames, temporal_patch_size 2"
)
_QWEN3_VIDEO = (
    "transformers Qwen3VLVideoProcessor: frames of 128·32² to 768·32² px, 4–768 frames, "
    "temporal_patch_size 2, patch 16"
)


@dataclass(frozen=True)
class ThinkingRecipe:
    """A reasoning model's published decoding (OVO-S-Bench Table 14): used when the run turns
    thinking on (``chat_template_kwargs.enable_thinking``) or the model is a thinking variant.
    ``max_tokens`` caps the thinking trace and the answer together."""

    max_tokens: int
    temperature: float | None = 0.0
    top_p: float | None = None
    toggle: str = "chat_template_kwargs.enable_thinking=true"
    built_in: bool = False  # always reasons (no user toggle)
    source: str = "OVO-S-Bench Table 14"


@dataclass(frozen=True)
class ModelRecipe:
    """One model family's input recipe; ``None`` fields keep the project's defaults."""

    family: str
    names: tuple[str, ...]  # regular expressions, matched case-insensitively in the name
    model_types: tuple[str, ...] = ()  # config.json model_type values
    frame_size: int | None = None  # shorter side of a frame, px
    max_pixels: int | None = None  # per-frame pixel cap (width × height)
    frame_budget: int | None = None  # frames one request may carry at most
    video: bool = False  # the authors' path takes a frame sequence as one video
    times: str = TIMES_NONE  # how the family reads frame times in a video
    temporal_patch: int = 1  # frames merged into one temporal patch
    chat_template: str = ""  # what the chat template does with the parts
    thinking: ThinkingRecipe | None = None
    # A variant that always thinks, by name (Qwen3-VL-8B-Thinking).
    thinking_names: tuple[str, ...] = (r"thinking",)
    source: str = ""

    def matches(self, name: str, model_type: str | None = None) -> bool:
        if model_type is not None and model_type in self.model_types:
            return True
        return any(re.search(p, name, re.IGNORECASE) for p in self.names)

    def thinks_by_name(self, name: str) -> bool:
        if self.thinking is None:
            return False
        if self.thinking.built_in:
            return True
        return any(re.search(p, name, re.IGNORECASE) for p in self.thinking_names)


# What the video processors of all three Qwen-VL generations share (_QWEN2_VIDEO and
# _QWEN3_VIDEO): at most 768 frames of at most 768 merged patches each, two frames to a temporal
# patch, and one placeholder for the whole video in the chat template.
_QWEN_VL_PLACEHOLDER = "one <|vision_start|><|video_pad|><|vision_end|> per video; "


def _qwen_vl(
    family: str,
    names: tuple[str, ...],
    model_types: tuple[str, ...],
    *,
    merged_patch: int,
    times: str,
    template: str,
    source: str,
    thinking: ThinkingRecipe | None = None,
) -> ModelRecipe:
    """A Qwen-VL generation's video recipe; ``merged_patch``: the side, in px, of the 2×2
    merged patch its frames are measured in (28, or 32 from Qwen3-VL's 16 px patches)."""
    return ModelRecipe(
        family=family,
        names=names,
        model_types=model_types,
        max_pixels=768 * merged_patch * merged_patch,
        frame_budget=768,
        video=True,
        times=times,
        temporal_patch=2,
        chat_template=_QWEN_VL_PLACEHOLDER + template,
        thinking=thinking,
        source=source,
    )


RECIPES: tuple[ModelRecipe, ...] = (
    _qwen_vl(
        "qwen3-vl",
        (r"qwen3[-_.]?vl",),
        ("qwen3_vl", "qwen3_vl_moe"),
        merged_patch=32,
        times=TIMES_TEXT,
        template="the processor writes '<t seconds>' before each temporal patch, t the mean of "
        "its two frames' times",
        thinking=ThinkingRecipe(max_tokens=8192),
        source=f"Qwen3-VL model card (video input); {_QWEN3_VIDEO}; OVO-S-Bench App. G.3 "
        "(Qwen3-VL's max_pixels) and Table 14 (Qwen3-VL-thinking: T 0, 8,192 tokens)",
    ),
    _qwen_vl(
        "qwen2.5-vl",
        (r"qwen2\.5[-_]?vl", r"qwen25[-_]?vl"),
        ("qwen2_5_vl",),
        merged_patch=28,
        times=TIMES_FPS,
        template="second_per_grid_ts = temporal_patch_size / the frames' rate aligns temporal "
        "ids with absolute time",
        source=f"Qwen2.5-VL model card and technical report §2.1 (absolute time encoding); "
        f"{_QWEN2_VIDEO}",
    ),
    _qwen_vl(
        "qwen2-vl",
        (r"qwen2[-_]?vl",),
        ("qwen2_vl",),
        merged_patch=28,
        times=TIMES_NONE,
        template="two frames merge into one temporal patch",
        source=f"Qwen2-VL model card (video input); {_QWEN2_VIDEO}",
    ),
    ModelRecipe(
        family="qwen3.5",
        names=(r"qwen3\.5",),
        model_types=("qwen3_5", "qwen3_5_moe"),
        thinking=ThinkingRecipe(max_tokens=32768),
        source="OVO-S-Bench Table 14 (Qwen3.5-thinking: T 0, 32,768 tokens)",
    ),
    ModelRecipe(
        family="internvl3.5",
        names=(r"internvl[-_]?3\.5",),
        frame_size=448,
        chat_template="frames as images, each after 'Frame{i}: ' (the model card's video example)",
        thinking=ThinkingRecipe(
            max_tokens=16384,
            temperature=0.6,
            top_p=0.95,
            toggle="R1 system prompt + chain-of-thought user template",
        ),
        source="InternVL3.5 model card (448 px tiles, load_video); OVO-S-Bench Table 14 "
        "(InternVL-3.5-thinking: T 0.6, top-p 0.95, 16,384 tokens)",
    ),
    ModelRecipe(
        family="glm-4.6v",
        names=(r"glm[-_]?4\.6v",),
        thinking=ThinkingRecipe(max_tokens=16384),
        source="OVO-S-Bench Table 14 (GLM-4.6V-Flash-thinking: T 0, 16,384 tokens)",
    ),
    ModelRecipe(
        family="grok-4.1-fast-reasoning",
        names=(r"grok[-_]?4\.1[-_]fast[-_]reasoning",),
        thinking=ThinkingRecipe(max_tokens=4096, toggle="built-in", built_in=True),
        source="OVO-S-Bench Table 14 (Grok-4.1-Fast-Reasoning: T 0, 4,096 tokens)",
    ),
)


def _model_type(folder: Path) -> str | None:
    try:
        value = json.loads((folder / "config.json").read_text(encoding="utf-8")).get("model_type")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def recipe_for(spec: str | ModelSpec) -> ModelRecipe | None:
    """The recipe of the model named by ``spec`` (``openai:NAME``, ``hf:PATH|ORG/NAME``), or
    None; a local ``hf:`` folder is recognised by its ``config.json`` first."""
    if isinstance(spec, ModelSpec):
        kind, name = spec.kind, spec.arg
    else:
        kind, _, name = spec.partition(":")
    model_type = None
    if kind.strip().lower() == "hf":
        folder = Path(name.strip()).expanduser()
        if folder.is_dir():
            model_type = _model_type(folder)
    for recipe in RECIPES:
        if recipe.matches(name, model_type):
            return recipe
    return None


__all__ = [
    "RECIPES",
    "TIMES_FPS",
    "TIMES_NONE",
    "TIMES_TEXT",
    "ModelRecipe",
    "ThinkingRecipe",
    "recipe_for",
]
