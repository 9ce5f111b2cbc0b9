"""Model input recipes: which family a model is, and what the run takes from it."""

from __future__ import annotations

import json

import pytest

from streamspatial.agents.policy import PolicyAgent
from streamspatial.eval.config import build_config
from streamspatial.eval.inputs import resolve_inputs
from streamspatial.models.recipes import RECIPES, recipe_for


@pytest.mark.parametrize(
    ("spec", "family"),
    [
        ("openai:Qwen/Qwen2.5-VL-7B-Instruct", "qwen2.5-vl"),
        ("openai:qwen2-vl-2b", "qwen2-vl"),
        ("openai:tiny-Qwen2-VL", "qwen2-vl"),
        ("hf:Qwen/Qwen3-VL-8B-Thinking@main", "qwen3-vl"),
        ("openai:OpenGVLab/InternVL3.5-8B", "internvl3.5"),
        ("openai:gpt-4o", None),
        ("random", None),
    ],
)
def test_a_family_is_known_by_its_name(spec, family):
    recipe = recipe_for(spec)
    assert (recipe.family if recipe else None) == family


def test_a_local_folder_is_known_by_its_config(tmp_path):
    folder = tmp_path / "my-finetune"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "qwen2_5_vl"}))
    assert recipe_for(f"hf:{folder}").family == "qwen2.5-vl"
    (folder / "config.json").write_text(json.dumps({"model_type": "llava"}))
    assert recipe_for(f"hf:{folder}") is None


def test_every_recipe_names_its_source_and_thinking_variants_by_name():
    assert all(r.source for r in RECIPES)
    qwen3 = recipe_for("openai:Qwen/Qwen3-VL-8B-Thinking")
    assert qwen3.thinks_by_name("Qwen3-VL-8B-Thinking")
    assert not qwen3.thinks_by_name("Qwen3-VL-8B-Instruct")
    assert recipe_for("openai:grok-4.1-fast-reasoning").thinks_by_name("grok-4.1-fast-reasoning")


def inputs(model: str, policy: str = "uniform-8", **cli):
    cfg = build_config({"data": "d", "videos": "v", "model": model, "out": "o",
                        "policy": policy, **cli})  # fmt: skip
    return resolve_inputs(cfg, recipe_for(model), PolicyAgent(policy))


def test_the_recipe_sizes_frames_unless_frame_size_is_given():
    got = inputs("openai:Qwen/Qwen3-VL-8B-Instruct")
    assert (got.frames, got.frame_size, got.max_pixels) == ("video", 448, 768 * 32 * 32)
    got = inputs("openai:Qwen/Qwen3-VL-8B-Instruct", frame_size=336)
    assert (got.frame_size, got.max_pixels) == (336, None)
    got = inputs("openai:gpt-4o")
    assert (got.frames, got.frame_size, got.max_pixels, got.recipe) == ("images", 448, None, None)
    assert inputs("openai:Qwen/Qwen3-VL-8B-Instruct", policy="none").frames == "images"
    assert inputs("openai:Qwen/Qwen3-VL-8B-Instruct", frames="images").frames == "images"
    assert inputs("openai:gpt-4o", frames="video").frames == "video"
