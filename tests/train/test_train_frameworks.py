"""The training exports as the frameworks that consume them load them, with their own code.

A one-house train split is exported in every format; then:

* ``--format hf`` is loaded by ``datasets.load_dataset`` in a process with the Hub switched off;
* ``--format qwen-vl`` goes through qwen-vl-finetune's own loader (``_build_messages`` and its
  ``LazySupervisedDataset`` with a Qwen2.5-VL processor, every example), which is not on PyPI:
  ``STREAMSPATIAL_QWEN_VL_FINETUNE`` names its ``qwenvl/data`` folder (QwenLM/Qwen3-VL at
  96588727; ``../shared/data/qwen_vl_finetune`` beside a checkout of this project), and it runs
  in the torchvision environment ``STREAMSPATIAL_TORCHVISION_ENV`` names;
* ``--format llamafactory`` goes through LLaMA-Factory's ``get_dataset`` in the environment
  ``STREAMSPATIAL_LLAMAFACTORY_ENV`` names (``scripts/llamafactory-env.sh`` builds one).

Without those variables the framework tests skip with that reason (docs/training.md shows the
commands that run them).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from train_fixtures import cli, generate_train

pytest.importorskip("mujoco")

ROOT = Path(__file__).resolve().parents[2]
QWEN_CODE = os.environ.get("STREAMSPATIAL_QWEN_VL_FINETUNE")
TORCHVISION_ENV = os.environ.get("STREAMSPATIAL_TORCHVISION_ENV")
LLAMAFACTORY_ENV = os.environ.get("STREAMSPATIAL_LLAMAFACTORY_ENV")
FORMATS = ("llamafactory", "qwen-vl", "hf")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    src, _ = generate_train(tmp_path_factory.mktemp("frameworks"))
    records = (src / "train.jsonl").read_text().splitlines()
    out = {}
    for fmt in FORMATS:
        code, printed = cli("export-sft", src, "--format", fmt, "--policy", "uniform-6",
                            "--frame-size", "48")  # fmt: skip
        assert code == 0, printed
        out[fmt] = src / "sft" / fmt
    return src, len(records), out


def check(python: Path, *args: object) -> dict:
    """Run ``tests/framework_loader_check.py`` with ``python``; the JSON it printed last."""
    assert python.exists(), f"no interpreter at {python}"
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT / 'tests'}",
           "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}  # fmt: skip
    done = subprocess.run(
        [str(python), str(ROOT / "tests" / "framework_loader_check.py"), *map(str, args)],
        capture_output=True, text=True, env=env, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_hf_export_loads_with_datasets_offline(exported) -> None:
    pytest.importorskip("datasets")  # the `train` extra
    src, n, out = exported
    folder = out["hf"]
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "data"]
    assert [p.name for p in (folder / "data").iterdir()] == ["train-00000-of-00001.parquet"]
    script = """
import json, sys
from datasets import Image, List, load_dataset
rows = load_dataset(sys.argv[1], split="train")
raw = rows.cast_column("images", List(Image(decode=False)))
print(json.dumps({
    "n": rows.num_rows,
    "features": sorted(rows.features),
    "decoded": all(im.size[0] > 0 for row in rows for im in row["images"]),
    "placeholders": [sum(m["content"].count("<image>") for m in row["messages"]) for row in raw],
    "images": [[im["path"] for im in row["images"]] for row in raw],
    "bytes": [[len(im["bytes"]) for im in row["images"]] for row in raw],
    "ids": [row["id"] for row in raw],
}))
"""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    done = subprocess.run([sys.executable, "-c", script, str(folder)], capture_output=True,
                          text=True, env=env, timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["n"] == n and got["decoded"]
    assert got["features"] == sorted(["messages", "images", "id", "kind", "source_video", "t_q",
                                      "frame_times", "view_times"])  # fmt: skip
    assert got["placeholders"] == [len(paths) for paths in got["images"]]
    # the very pictures the LLaMA-Factory export writes as files, row for row
    rows = json.loads((out["llamafactory"] / "streamspatial_train.json").read_text())
    assert got["ids"] == [r["id"] for r in rows]
    assert got["images"] == [r["images"] for r in rows]
    sizes = [[(out["llamafactory"] / p).stat().st_size for p in r["images"]] for r in rows]
    assert got["bytes"] == sizes
    card = (folder / "README.md").read_text()
    manifest = json.loads((src / "manifest.json").read_text())
    assert card.startswith("---\nconfigs:\n- config_name: default\n")
    assert f'"generation": "{manifest["generation"]}"' in card and '"seed": 3' in card
    assert '"policy": "uniform-6"' in card and f"num_examples: {n}" in card


@pytest.mark.skipif(
    not (QWEN_CODE and TORCHVISION_ENV),
    reason="STREAMSPATIAL_QWEN_VL_FINETUNE (qwen-vl-finetune's qwenvl/data folder) and "
    "STREAMSPATIAL_TORCHVISION_ENV (a venv with torchvision and transformers) are not both "
    "set: Qwen's own loader is not run (docs/training.md)",
)
def test_the_qwen_vl_export_passes_qwens_own_loader(exported, tmp_path) -> None:
    _, n, out = exported
    got = check(Path(str(TORCHVISION_ENV)) / "bin" / "python", "qwen-vl", out["qwen-vl"],
                tmp_path, QWEN_CODE)  # fmt: skip
    assert got["failures"] == []
    assert got["rows"] == got["examples"] == got["tokens_match_images"] == n
    assert got["images"] > n  # several pictures an example, each found and processed
    # the registration line added one entry to Qwen's table and replaced none of its own
    assert got["registered"] == ["streamspatial_train"]
    assert got["kept_their_entries"] and got["their_entries"] >= 1
    # the check can fail: a row with a `video` key is refused by the loader
    assert "video(s) remain unused" in str(got["with_a_video_key"])


@pytest.mark.skipif(
    not LLAMAFACTORY_ENV,
    reason="STREAMSPATIAL_LLAMAFACTORY_ENV (a venv from scripts/llamafactory-env.sh) is not "
    "set: LLaMA-Factory's own loader is not run (docs/training.md)",
)
def test_the_llamafactory_export_loads_with_llamafactorys_loader(exported, tmp_path) -> None:
    _, n, out = exported
    got = check(Path(str(LLAMAFACTORY_ENV)) / "bin" / "python", "llamafactory",
                out["llamafactory"], tmp_path)  # fmt: skip
    assert got["rows"] == got["examples"] == got["targets_labelled"] == n
    assert got["images"] == got["images_found"] == got["wanted"] > n


@pytest.mark.parametrize("name", ["2024run", "my-set.v2", "streamspatial_train"])
def test_the_qwen_registration_is_python_for_any_name_and_adds_one_entry(exported, name):
    src, _, _ = exported
    folder = src / "sft" / f"qwen-{re.sub(r'[^a-z0-9]', '', name)}"
    code, printed = cli("export-sft", src, "--format", "qwen-vl", "--dataset", name,
                        "--out", folder, "--kinds", "fold")  # fmt: skip
    if not name.replace("_", "").replace("-", "").isalnum():
        assert code == 2  # the name a dataset may have: letters, digits, - and _
        return
    assert code == 0, printed
    snippet = (folder / "qwenvl_dataset.py").read_text()
    theirs = {"cambrian_737k": {"annotation_path": "x", "data_path": ""}}
    scope = {"data_dict": dict(theirs)}
    exec(compile(snippet, "qwenvl_dataset.py", "exec"), scope)
    assert set(scope["data_dict"]) == {*theirs, name}
    assert scope["data_dict"][name]["annotation_path"] == str(folder.resolve() / f"{name}.json")
