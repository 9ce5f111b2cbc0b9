"""Build a tiny, randomly initialised Qwen2-VL, Qwen2.5-VL or Qwen3-VL and its processor, offline.

The Qwen-VL family's video path (frames merged in pairs into temporal patches, Qwen2.5-VL's
temporal ids scaled to seconds, Qwen3-VL's ``<t seconds>`` before each patch) must be tested
through the real processors and models, and served by a real vLLM, without downloading
anything.  As :mod:`.tiny_vlm` does for LLaVA, everything is made here: a byte-level BPE
tokenizer trained on a few sentences and carrying Qwen's special tokens, a chat template that
places Qwen's image and video placeholders, and a 2-layer model with hidden size 128.  Its
answers are noise; its shapes, processors and position ids are the family's own.

The processors need torchvision (the video processor): ``pip install torch==2.14.1
torchvision==0.29.1`` is a pair that imports and runs on a CPU.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FAMILIES = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl")
SPECIAL_TOKENS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
]

# Qwen's chat template, reduced to what a request holds: text, image and video parts.
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' or part['type'] == 'image_url' %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'video' or part['type'] == 'video_url' %}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "Video: 8 frames from 0 s to 14 s, one every 2 s: What is to the left of the sofa?",
    "Frame at 0.5 s: Answer with the option's letter. A. chair B. table C. lamp D. door",
    "The answer is A. The answer is B. How many chairs? 0 1 2 3 4 5 6 7 8 9 seconds",
]

TEXT = {"hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 2,
        "num_attention_heads": 2, "num_key_value_heads": 1,
        "max_position_embeddings": 8192}  # fmt: skip


def _tokenizer() -> Any:
    from .tiny_vlm import bpe_tokenizer

    return bpe_tokenizer(_CORPUS, SPECIAL_TOKENS, vocab_size=500, model_max_length=8192)


def _config(family: str, vocab: int, ids: dict[str, int]) -> Any:
    import transformers as tf

    tokens = {"image_token_id": ids["<|image_pad|>"], "video_token_id": ids["<|video_pad|>"],
              "vision_start_token_id": ids["<|vision_start|>"],
              "vision_end_token_id": ids["<|vision_end|>"]}  # fmt: skip
    text = {**TEXT, "vocab_size": vocab, "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"], "bos_token_id": None}  # fmt: skip
    # head_dim 64: the M-RoPE sections (temporal, height, width) add up to 32
    mrope = {"rope_type": "default", "rope_theta": 1000000.0, "mrope_section": [8, 12, 12]}
    if family == "qwen2_vl":
        vision = {"depth": 2, "embed_dim": 64, "hidden_size": 128, "num_heads": 2,
                  "mlp_ratio": 2, "patch_size": 14, "spatial_merge_size": 2,
                  "temporal_patch_size": 2}  # fmt: skip
        return tf.Qwen2VLConfig(
            text_config={**text, "rope_parameters": mrope}, vision_config=vision, **tokens
        )
    if family == "qwen2_5_vl":
        vision = {"depth": 2, "hidden_size": 64, "intermediate_size": 128, "num_heads": 2,
                  "out_hidden_size": 128, "window_size": 112, "fullatt_block_indexes": [1],
                  "tokens_per_second": 2, "patch_size": 14, "spatial_merge_size": 2,
                  "temporal_patch_size": 2}  # fmt: skip
        return tf.Qwen2_5_VLConfig(
            text_config={**text, "rope_parameters": mrope}, vision_config=vision, **tokens
        )
    vision = {"depth": 2, "hidden_size": 64, "intermediate_size": 128, "num_heads": 2,
              "out_hidden_size": 128, "patch_size": 16, "spatial_merge_size": 2,
              "temporal_patch_size": 2, "num_position_embeddings": 256,
              "deepstack_visual_indexes": [1]}  # fmt: skip
    rope = {**mrope, "mrope_section": [12, 10, 10], "mrope_interleaved": True}
    return tf.Qwen3VLConfig(
        text_config={**text, "head_dim": 64, "rope_parameters": rope},
        vision_config=vision,
        **tokens,
    )


# The pixel ranges of the released checkpoints' processor configs (not the processor classes'
# defaults): Qwen2-VL / Qwen2.5-VL-7B-Instruct preprocessor_config.json, min 56·56 and max
# 28·28·16384 for images and videos alike; Qwen3-VL-8B-Instruct preprocessor_config.json and
# video_preprocessor_config.json.
QWEN2_PIXELS = {"shortest_edge": 56 * 56, "longest_edge": 28 * 28 * 16384}
QWEN3_IMAGE_PIXELS = {"shortest_edge": 65536, "longest_edge": 16777216}
QWEN3_VIDEO_PIXELS = {"shortest_edge": 4096, "longest_edge": 25165824}


def _processor(family: str, tokenizer: Any) -> Any:
    import transformers as tf

    if family == "qwen3_vl":
        image = tf.Qwen2VLImageProcessor(patch_size=16, merge_size=2, size=QWEN3_IMAGE_PIXELS)
        video = tf.Qwen3VLVideoProcessor(size=QWEN3_VIDEO_PIXELS)
        return tf.Qwen3VLProcessor(image, tokenizer, video, chat_template=CHAT_TEMPLATE)
    image = tf.Qwen2VLImageProcessor(size=QWEN2_PIXELS)
    video = tf.Qwen2VLVideoProcessor(size=QWEN2_PIXELS)
    cls = tf.Qwen2VLProcessor if family == "qwen2_vl" else tf.Qwen2_5_VLProcessor
    return cls(image, tokenizer, video, chat_template=CHAT_TEMPLATE)


def build_tiny_qwen_vl(
    folder: str | Path, family: str = "qwen2_5_vl", seed: int = 0, dtype: str = "float32"
) -> Path:
    """Write a loadable tiny ``family`` model (``qwen2_vl``, ``qwen2_5_vl`` or ``qwen3_vl``)
    and its processor to ``folder`` and return it."""
    import torch
    import transformers as tf

    if family not in FAMILIES:
        raise ValueError(f"family: expected one of {', '.join(FAMILIES)}, got {family!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    config = _config(family, len(tokenizer), ids)
    torch.manual_seed(seed)
    model = tf.AutoModelForImageTextToText.from_config(config, dtype=getattr(torch, dtype))
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(folder)
    _processor(family, tokenizer).save_pretrained(folder)
    return folder


__all__ = ["CHAT_TEMPLATE", "FAMILIES", "build_tiny_qwen_vl"]
