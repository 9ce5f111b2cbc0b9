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
from pathlib import Path
from typing import Any, Protocol

from .hf_dataset import HuggingFace
from .prepared import ExportTarget, Prepared

IMAGE = "<image>"


class SFTFormat(Protocol):
    name: str
    source: str  # where the layout is documented

    def write(self, examples: list[Prepared], to: ExportTarget) -> list[str]:
        """Write ``examples`` into ``to.folder``; the names of the files written."""
        ...


def _dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class _JsonArray:
    """The shape both frameworks' layouts share: a JSON array of one row per example in
    ``<dataset>.json``, then the file that registers it with the framework."""

    name: str
    source: str  # where the layout is documented

    def write(self, examples: list[Prepared], to: ExportTarget) -> list[str]:
        data_file = f"{to.dataset}.json"
        _dump(to.folder / data_file, [self.row(ex) for ex in examples])
        return [data_file, self.register(to, data_file)]

    def row(self, ex: Prepared) -> dict[str, Any]:
        """One example as the framework's loader reads it."""
        raise NotImplementedError

    def register(self, to: ExportTarget, data_file: str) -> str:
        """Write the file registering ``data_file`` with the framework; its name."""
        raise NotImplementedError


class LlamaFactory(_JsonArray):
    name = "llamafactory"
    source = (
        "https://github.com/hiyouga/LLaMA-Factory/blob/main/data/README.md "
        "(ShareGPT formatting, OpenAI-style messages, images column)"
    )

    def row(self, ex: Prepared) -> dict[str, Any]:
        return {"messages": ex.messages(), "images": list(ex.images), **ex.extra()}

    def register(self, to: ExportTarget, data_file: str) -> str:
        info = {
            to.dataset: {
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
        _dump(to.folder / "dataset_info.json", info)
        return "dataset_info.json"


class QwenVL(_JsonArray):
    name = "qwen-vl"
    source = (
        "https://github.com/QwenLM/Qwen2.5-VL/blob/main/qwen-vl-finetune/README.md "
        "(custom dataset layout and data_dict registration; qwenvl/data/data_processor.py)"
    )

    def row(self, ex: Prepared) -> dict[str, Any]:
        turns = list(ex.turns)
        if turns[0][0] == "system":  # no system turn in this loader: it opens the first
            system = turns.pop(0)[1]
            role, text = turns[0]
            turns[0] = (role, f"{system}\n{text}")
        return {
            "image": list(ex.images),
            "conversations": [
                {"from": "human" if role == "user" else "gpt", "value": text}
                for role, text in turns
            ],
            **ex.extra(),
        }

    def register(self, to: ExportTarget, data_file: str) -> str:
        final = to.final.resolve()
        entry = (
            "# Register the export with qwen-vl-finetune: paste at the end of\n"
            "# qwenvl/data/__init__.py (it adds one entry to data_dict), then train with\n"
            f"# --dataset_use {to.dataset}\n"
            f"data_dict[{json.dumps(to.dataset)}] = {{\n"
            f'    "annotation_path": {json.dumps(str(final / data_file))},\n'
            f'    "data_path": {json.dumps(str(final))},\n'
            "}\n"
        )
        (to.folder / "qwenvl_dataset.py").write_text(entry, encoding="utf-8")
        return "qwenvl_dataset.py"


FORMATS: dict[str, SFTFormat] = {f.name: f for f in (LlamaFactory(), QwenVL(), HuggingFace())}
