"""Build a tiny, randomly initialised chat VLM and its processor in a folder, offline.

The local Hugging Face backend must be tested through its real loading path
(``AutoProcessor`` / ``AutoModelForImageTextToText`` from a folder) without downloading
anything, so everything here is made from scratch: a byte-level BPE tokenizer trained on a few
sentences (so any text encodes), a Qwen-style chat template with image placeholders, and a
2-layer model with hidden size 32.  Its answers are noise; its shapes and plumbing are real.

The architecture is LLaVA (CLIP vision tower + Llama text model), not Qwen2-VL: with
transformers 5.x every Qwen-VL processor requires a video processor, and video processors
require torchvision, whose only wheels here are CUDA builds that do not load against the CPU
torch.  The backend is architecture-agnostic (``AutoProcessor`` + chat template), so the same
code path loads Qwen2.5-VL / Qwen3-VL folders once torchvision is installed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>"]

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

_CORPUS = [
    "Frame at 0.0s: What is to the left of the sofa? Answer with the option's letter.",
    "A. chair B. table C. lamp D. door. How many chairs have you seen so far? 0 1 2 3 4 5",
    "The answer is A. The answer is B. The answer is C. The answer is D.",
]


def bpe_tokenizer(corpus: list[str], special: list[str], vocab_size: int, **kwargs: Any) -> Any:
    """A byte-level BPE trained on ``corpus`` (so any text encodes), with ``special[0]`` for
    padding, ``<|im_end|>`` ending an answer and the rest of ``special`` as special tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=special,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(corpus, trainer=trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=bpe,
        eos_token="<|im_end|>",
        pad_token=special[0],
        additional_special_tokens=special[1:],
        **kwargs,
    )


def build_tiny_vlm(folder: str | Path, seed: int = 0, image_size: int = 28) -> Path:
    """Write a loadable tiny LLaVA-style model + processor to ``folder`` and return it."""
    import torch
    from transformers import (
        CLIPImageProcessor,
        LlavaConfig,
        LlavaForConditionalGeneration,
        LlavaProcessor,
    )

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = bpe_tokenizer(_CORPUS, SPECIAL_TOKENS, vocab_size=400)
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in SPECIAL_TOKENS}
    patch = 14
    image_processor = CLIPImageProcessor(
        size={"shortest_edge": image_size}, crop_size={"height": image_size, "width": image_size}
    )
    processor = LlavaProcessor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        patch_size=patch,
        vision_feature_select_strategy="default",
        chat_template=CHAT_TEMPLATE,
        image_token="<image>",
        num_additional_image_tokens=1,
    )
    config = LlavaConfig(
        vision_config={
            "model_type": "clip_vision_model",
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": image_size,
            "patch_size": patch,
            "projection_dim": 32,
        },
        text_config={
            "model_type": "llama",
            "vocab_size": tokenizer.backend_tokenizer.get_vocab_size(),
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "num_key_value_heads": 1,
            "max_position_embeddings": 2048,
            "eos_token_id": ids["<|im_end|>"],
            "pad_token_id": ids["<|endoftext|>"],
        },
        image_token_index=ids["<image>"],
        vision_feature_select_strategy="default",
        vision_feature_layer=-1,
        projector_hidden_act="gelu",
    )
    torch.manual_seed(seed)
    model = LlavaForConditionalGeneration(config)
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder
