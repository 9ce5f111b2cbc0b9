"""Load an ``export-sft`` folder with a fine-tuning framework's own loader; print what it made.

Run by ``tests/train/test_train_frameworks.py`` with the interpreter of the environment that has the
framework (this project's own environment keeps neither: LLaMA-Factory pins older
transformers and datasets, and Qwen's processors need torchvision):

    python tests/framework_loader_check.py qwen-vl EXPORT WORK QWEN_VL_FINETUNE_DATA_DIR
    python tests/framework_loader_check.py llamafactory EXPORT WORK

Both build the tiny Qwen2.5-VL processor (:mod:`streamspatial.testing.tiny_qwen`: Qwen's
processor classes, a tokenizer with Qwen's special tokens) in WORK and print one JSON line.

* ``qwen-vl``: imports qwen-vl-finetune's ``qwenvl/data`` package from the folder given (it is
  not on PyPI), pastes the export's ``qwenvl_dataset.py`` at the end of the package's module
  as its README says, and builds its ``LazySupervisedDataset`` from ``--dataset_use NAME``
  (its ``data_list``, annotation file and ``data_path``); then every example goes through
  ``_build_messages`` and ``_get_item``: the chat template, the processor on every picture,
  Qwen2.5-VL's 3D position ids.
* ``llamafactory``: ``get_train_args`` / ``load_tokenizer`` / ``get_dataset`` exactly as
  ``llamafactory-cli train`` calls them, with the export as ``dataset_dir`` and the
  ``qwen2_vl`` template: the ShareGPT converter resolves each picture against the folder and
  the multimodal plugin opens it and checks it against its ``<image>``.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path
from types import SimpleNamespace

from streamspatial.testing.tiny_qwen import build_tiny_qwen_vl

DATASET = "streamspatial_train"


def qwen_vl(export: Path, work: Path, code: Path) -> dict:
    spec = importlib.util.spec_from_file_location(
        "qwenvl_data", code / "__init__.py", submodule_search_locations=[str(code)]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules["qwenvl_data"] = package
    spec.loader.exec_module(package)
    before = dict(package.data_dict)
    exec((export / "qwenvl_dataset.py").read_text(), package.__dict__)  # pasted at the end
    added = sorted(set(package.data_dict) - set(before))
    kept = all(package.data_dict[k] is v for k, v in before.items())
    processor_mod = importlib.import_module("qwenvl_data.data_processor")
    from transformers import AutoProcessor

    processor = AutoProcessor.from_pretrained(build_tiny_qwen_vl(work / "qwen", "qwen2_5_vl"))
    args = SimpleNamespace(
        dataset_use=DATASET, model_type="qwen2.5vl", data_packing=False,
        min_pixels=3136, max_pixels=200704, video_min_pixels=3136, video_max_pixels=200704,
        video_min_frames=4, video_max_frames=8, video_fps=2,
    )  # fmt: skip
    dataset = processor_mod.LazySupervisedDataset(processor, args)
    pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    merge = processor.image_processor.merge_size
    examples, images, tokens_ok, failures = 0, 0, 0, []
    for row in dataset.list_data_dict:
        try:
            messages = processor_mod._build_messages(row, Path(row["data_path"]))
            shown = [p["image"] for m in messages for p in m["content"] if p["type"] == "image"]
            assert all(Path(p).is_file() for p in shown), "a picture is missing"
            out = dataset._get_item([row])
        except Exception as exc:  # reported, per example
            failures.append(f"{row.get('id')}: {type(exc).__name__}: {exc}")
            continue
        examples += 1
        images += len(shown)
        grid = out["image_grid_thw"]
        pads = int((out["input_ids"] == pad).sum())
        tokens_ok += len(grid) == len(shown) and pads == int(grid.prod(dim=1).sum()) // merge**2
        assert out["position_ids"].shape[0] == 3  # Qwen2.5-VL's M-RoPE: time, height, width
    # what the export wrote before its metadata left the `video` key: the loader refuses it
    row = {**dataset.list_data_dict[0], "video": "streamspatial-sim/house-walk.mp4"}
    try:
        processor_mod._build_messages(row, Path(row["data_path"]))
        refused = None
    except ValueError as exc:
        refused = str(exc)
    return {"rows": len(dataset), "examples": examples, "images": images,
            "with_a_video_key": refused,
            "tokens_match_images": tokens_ok, "failures": failures[:5],
            "registered": added, "kept_their_entries": kept,
            "their_entries": len(before)}  # fmt: skip


def llamafactory(export: Path, work: Path) -> dict:
    from llamafactory.data import get_dataset, get_template_and_fix_tokenizer
    from llamafactory.hparams import get_train_args
    from llamafactory.model import load_tokenizer

    model = build_tiny_qwen_vl(work / "qwen", "qwen2_5_vl")
    args = dict(stage="sft", do_train=True, model_name_or_path=str(model), dataset=DATASET,
                dataset_dir=str(export), template="qwen2_vl", cutoff_len=1_000_000,
                output_dir=str(work / "out"), overwrite_cache=True, finetuning_type="lora",
                report_to="none")  # fmt: skip
    model_args, data_args, training_args, *_ = get_train_args(args)
    tokenizers = load_tokenizer(model_args)
    template = get_template_and_fix_tokenizer(tokenizers["tokenizer"], data_args)
    module = get_dataset(template, model_args, data_args, training_args, "sft", **tokenizers)
    dataset = module["train_dataset"]
    rows = json.loads((export / f"{DATASET}.json").read_text())
    found = [Path(p).is_file() and Path(p).is_relative_to(export.resolve())
             for row in dataset for p in (row["images"] or [])]  # fmt: skip
    return {"rows": len(rows), "examples": len(dataset), "images": len(found),
            "images_found": sum(found), "wanted": sum(len(r["images"]) for r in rows),
            "targets_labelled": sum(any(t != -100 for t in row["labels"])
                                    for row in dataset)}  # fmt: skip


def main() -> None:
    kind, export, work = sys.argv[1], Path(sys.argv[2]).resolve(), Path(sys.argv[3])
    work.mkdir(parents=True, exist_ok=True)
    if kind == "qwen-vl":
        print(json.dumps(qwen_vl(export, work, Path(sys.argv[4]))))
    else:
        print(json.dumps(llamafactory(export, work)))


if __name__ == "__main__":
    main()
