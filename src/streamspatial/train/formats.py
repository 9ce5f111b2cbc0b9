"""What each fine-tuning framework reads, written from prepared examples.

Both layouts put pictures in the text as ``<image>`` placeholders, matched in order with a
list of image paths relative to the export folder; every picture is a file written once and
shared by path.  Fields the frameworks' loaders do not read carry what causality checks need:
``id``, ``kind`` (``qa``, ``explore``, ``fold``), ``source_video`` (the video the frames come
from: never ``video``, which Qwen's loader reads as a video to show), ``t_q``,
``frame_times`` (the video frames shown) and ``view_times`` (exploration views,
exploration-stream seconds ≥ t_q).  Both loaders are run on the exports by the tests
(``tests/train/test_train_frameworks.py``).

* **LLaMA-Factory** (``data/README.md`` of hiyouga/LLaMA-Factory, "OpenAI Format" of the
  ShareGPT formatting, with the multimodal ``images`` column): a JSON array of
  ``{"messages": [{"role", "content"}], "images": [...]}`` and a ``dataset_info.json``
  registering it (``formatting: sharegpt``, the ``messages`` / ``images`` columns and the
  role tags).  Train with ``dataset_dir`` set to the export folder (images resolve from it).
* **Qwen-VL** (``qwen-vl-finetune/README.md`` of QwenLM/Qwen2.5-VL, and its
  ``qwenvl/data/data_processor.py``): a JSON array of ``{"image": [...], "conversations":
  [{"from": "human"|"gpt", "value"}]}``; every ``<image>`` consumes one listed image and none
  may be left over.  Its loader knows no system turn (any ``from`` but ``human`` is the
  assistant), so a system prompt opens the first human turn.  Datasets are registered as a
  Python dict (``annotation_path``, ``data_path``) in ``qwenvl/data/__init__.py``'s
  ``data_dict``: ``qwenvl_dataset.py`` holds the line that adds this one entry to it, valid
  Python whatever the dataset's name, ready to paste at the end of that file.
* **Hugging Face datasets** (:mod:`.hf_dataset`): parquet shards with the pictures inside and
  a dataset card, as SAT publishes its data; ``datasets.load_dataset(OUT)`` reads it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from .hf_dataset import HuggingFace
from .prepared import Prepared

IMAGE = "<image>"


class SFTFormat(Protocol):
    name: str
    source: str  # where the layout is documented

    def write(
        self,
        examples: list[Prepared],
        folder: Path,
        final: Path,
        dataset: str,
        about: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """Write ``examples`` into ``folder`` (moved to ``final`` afterwards); the file names.
        ``about``: the source folder's ``manifest`` and the export's ``policy``,
        ``frame_size`` and ``kinds``, for formats that describe themselves."""
        ...


def _dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class LlamaFactory:
    name = "llamafactory"
    source = (
        "https://github.com/hiyouga/LLaMA-Factory/blob/main/data/README.md "
        "(ShareGPT formatting, OpenAI-style messages, images column)"
    )

    def write(
        self,
        examples: list[Prepared],
        folder: Path,
        final: Path,
        dataset: str,
        about: Mapping[str, Any] | None = None,
    ) -> list[str]:
        data_file = f"{dataset}.json"
        rows = [
            {
                "messages": [{"role": role, "content": text} for role, text in ex.turns],
                "images": list(ex.images),
                **ex.extra(),
            }
            for ex in examples
        ]
        _dump(folder / data_file, rows)
        info = {
            dataset: {
                "file_name": data_file,
                "formatting": "sharegpt",
                "columns": {"messages": "messages", "images": "images"},
                "tags": {
                    "role_tag": "role",
                    "content_tag": "content",
                    "user_tag": "user",
                    "assistant_tag": "assistant",
                    "system_tag": "system",
                },
            }
        }
        _dump(folder / "dataset_info.json", info)
        return [data_file, "dataset_info.json"]


class QwenVL:
    name = "qwen-vl"
    source = (
        "https://github.com/QwenLM/Qwen2.5-VL/blob/main/qwen-vl-finetune/README.md "
        "(custom dataset layout and data_dict registration; qwenvl/data/data_processor.py)"
    )

    def write(
        self,
        examples: list[Prepared],
        folder: Path,
        final: Path,
        dataset: str,
        about: Mapping[str, Any] | None = None,
    ) -> list[str]:
        data_file = f"{dataset}.json"
        rows = []
        for ex in examples:
            turns = list(ex.turns)
            if turns[0][0] == "system":  # no system turn in this loader: it opens the first
                system = turns.pop(0)[1]
                role, text = turns[0]
                turns[0] = (role, f"{system}\n{text}")
            rows.append(
                {
                    "image": list(ex.images),
                    "conversations": [
                        {"from": "human" if role == "user" else "gpt", "value": text}
                        for role, text in turns
                    ],
                    **ex.extra(),
                }
            )
        _dump(folder / data_file, rows)
        entry = (
            "# Register the export with qwen-vl-finetune: paste at the end of\n"
            "# qwenvl/data/__init__.py (it adds one entry to data_dict), then train with\n"
            f"# --dataset_use {dataset}\n"
            f"data_dict[{json.dumps(dataset)}] = {{\n"
            f'    "annotation_path": {json.dumps(str(final.resolve() / data_file))},\n'
            f'    "data_path": {json.dumps(str(final.resolve()))},\n'
            "}\n"
        )
        (folder / "qwenvl_dataset.py").write_text(entry, encoding="utf-8")
        return [data_file, "qwenvl_dataset.py"]


FORMATS: dict[str, SFTFormat] = {f.name: f for f in (LlamaFactory(), QwenVL(), HuggingFace())}
