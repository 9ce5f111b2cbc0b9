"""Proof that the exported data trains: a generated train split, exported for LLaMA-Factory, is
read the way LLaMA-Factory reads it (``dataset_info.json`` → its file, columns and role tags;
one image per ``<image>``; user and assistant turns in turn) and fine-tunes the project's tiny
VLM with transformers' ``Trainer`` on the CPU, every kind of example (qa, explore, fold): the
loss on them falls.  This proves the plumbing (placeholders, images, chat template, label
masking), not accuracy; a malformed example fails the reading before any step runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from train_fixtures import cli, generate_train

pytest.importorskip("mujoco")
torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("accelerate")  # what Trainer needs (the `train` extra)

IMAGE = "<image>"
IGNORE = -100  # label of the tokens the loss skips (the prompt)


def read_llamafactory(folder: Path) -> list[tuple[str, list[dict], list[Path]]]:
    """(kind, chat messages in transformers' format, image files) per example, with
    LLaMA-Factory's checks: the registered columns and tags, alternating turns, one image per
    placeholder, every image a file."""
    info = json.loads((folder / "dataset_info.json").read_text())
    ((_name, attr),) = info.items()
    assert attr["formatting"] == "sharegpt"
    columns, tags = attr["columns"], attr["tags"]
    role_of = {tags["user_tag"]: "user", tags["assistant_tag"]: "assistant",
               tags["system_tag"]: "system"}  # fmt: skip
    out = []
    for row in json.loads((folder / attr["file_name"]).read_text()):
        turns = [
            (role_of[m[tags["role_tag"]]], m[tags["content_tag"]]) for m in row[columns["messages"]]
        ]
        images = [folder / p for p in row[columns["images"]]]
        roles = [r for r, _ in turns]
        if roles[0] == "system":
            roles = roles[1:]
        assert roles and roles == ["user", "assistant"] * (len(roles) // 2), row["id"]
        assert sum(t.count(IMAGE) for _, t in turns) == len(images), row["id"]
        assert all(p.is_file() for p in images), row["id"]
        chat = []
        for role, text in turns:
            parts: list[dict] = []
            for i, piece in enumerate(text.split(IMAGE)):
                if i:
                    parts.append({"type": "image"})
                if piece:
                    parts.append({"type": "text", "text": piece})
            chat.append({"role": role, "content": parts})
        out.append((row["kind"], chat, images))
    return out


class Examples(torch.utils.data.Dataset):
    """Tokenised examples; the loss counts the assistant's answer only."""

    def __init__(self, examples, processor):
        from PIL import Image

        self.rows = []
        for _kind, chat, files in examples:
            images = [Image.open(p).convert("RGB") for p in files]
            full = processor.apply_chat_template(chat, tokenize=False)
            prompt = processor.apply_chat_template(chat[:-1], tokenize=False,
                                                   add_generation_prompt=True)  # fmt: skip
            enc = processor(text=full, images=images, return_tensors="pt")
            n_prompt = processor(text=prompt, images=images, return_tensors="pt")[
                "input_ids"
            ].shape[1]
            labels = enc["input_ids"].clone()
            labels[0, :n_prompt] = IGNORE
            assert (labels != IGNORE).sum() > 0
            row = {"input_ids": enc["input_ids"][0], "attention_mask": enc["attention_mask"][0]}
            self.rows.append({**row, "pixel_values": enc["pixel_values"], "labels": labels[0]})

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int) -> dict:
        return self.rows[i]


def collate(batch: list[dict]) -> dict:
    (row,) = batch  # one example a step: no padding to the longest fold prompt
    return {k: v.unsqueeze(0) if k != "pixel_values" else v for k, v in row.items()}


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("trainer")
    # a 12 s walk: one fold (at 10 s) and one explorable question beside the others
    out, _ = generate_train(root, "--minutes", "0.2")
    folder = root / "sft"
    code, printed = cli("export-sft", out, "--format", "llamafactory", "--out", folder,
                        "--policy", "uniform-4", "--frame-size", "28")  # fmt: skip
    assert code == 0 and " fold)" in printed and "0 fold" not in printed, printed
    assert " 0 explore" not in printed, printed
    return folder


def test_a_fine_tune_on_the_exported_split_lowers_the_loss(exported, tmp_path) -> None:
    from transformers import AutoModelForImageTextToText, AutoProcessor, Trainer, TrainingArguments

    from streamspatial.testing.tiny_vlm import build_tiny_vlm

    examples = read_llamafactory(exported)  # every example read and checked …
    kinds = {k: [e for e in examples if e[0] == k] for k in ("qa", "explore", "fold")}
    assert all(kinds.values())
    # … a dozen and a few trained on, every kind (seconds on a CPU): the explore examples
    # with their action labels and their views after t_q
    examples = kinds["fold"] + kinds["explore"] + kinds["qa"][:11]
    model_dir = build_tiny_vlm(tmp_path / "tiny")
    processor = AutoProcessor.from_pretrained(model_dir)
    model = AutoModelForImageTextToText.from_pretrained(model_dir)
    data = Examples(examples, processor)
    args = TrainingArguments(
        output_dir=str(tmp_path / "run"),
        per_device_train_batch_size=1,
        per_device_eval_batch_size=1,
        max_steps=24,
        learning_rate=1e-2,
        warmup_steps=0,
        lr_scheduler_type="constant",
        logging_steps=8,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        seed=0,
        remove_unused_columns=False,
        dataloader_num_workers=0,
        disable_tqdm=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=data, eval_dataset=data,
                      data_collator=collate)  # fmt: skip
    before = trainer.evaluate()["eval_loss"]
    trainer.train()
    after = trainer.evaluate()["eval_loss"]
    print(f"loss on the exported examples: {before:.3f} before, {after:.3f} after 24 steps")
    assert after < 0.5 * before
