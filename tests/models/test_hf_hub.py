"""Hub ids: ``hf:ORG/NAME[@REVISION]`` resolved through a Hugging Face cache laid out as the Hub
lays out a download, offline; a model that is not there is one line, exit 2, no run folder;
the token in the environment is written nowhere.

The CLI runs as a subprocess, as a user runs it: ``huggingface_hub`` reads ``HF_HOME`` and
``HF_HUB_OFFLINE`` when it is imported, so the environment must be the process's own.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("huggingface_hub")

import streamspatial
from runner_fixtures import write_ovos
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.models.hf_hub import HFModelRef, parse_hf_spec
from streamspatial.testing import build_tiny_vlm, write_hub_cache

TOKEN = "hf_canaryTOKEN7f3a9c2e51d04b8e"
REPO = "tiny-org/tiny-vlm"


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return build_tiny_vlm(tmp_path_factory.mktemp("tiny-vlm") / "tiny-vlm")


@pytest.fixture(scope="module")
def hf_home(tiny_model, tmp_path_factory) -> tuple[Path, str]:
    """An HF_HOME whose hub cache holds the tiny VLM as REPO, at main and at tag v1."""
    home = tmp_path_factory.mktemp("hf-home")
    commit = write_hub_cache(tiny_model, home / "hub", REPO)
    write_hub_cache(tiny_model, home / "hub", REPO, ref="v1")
    return home, commit


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def test_a_hub_cache_as_the_hub_lays_it_out(hf_home):
    home, commit = hf_home
    repo = home / "hub" / "models--tiny-org--tiny-vlm"
    assert (repo / "refs" / "main").read_text() == commit
    snapshot = repo / "snapshots" / commit
    weights = snapshot / "model.safetensors"
    assert weights.is_symlink() and not os.path.isabs(os.readlink(weights))
    assert weights.resolve().parent == repo / "blobs"
    assert len(weights.resolve().name) == 64  # an LFS file's blob: its SHA-256
    assert len((snapshot / "config.json").resolve().name) == 40  # a git blob SHA-1


def test_specs_name_a_folder_or_a_hub_id(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert parse_hf_spec("Qwen/Qwen2.5-VL-7B-Instruct") == HFModelRef(
        "Qwen/Qwen2.5-VL-7B-Instruct", None, local=False
    )
    ref = parse_hf_spec("Qwen/Qwen2.5-VL-7B-Instruct@v1.0")
    assert (ref.source, ref.revision, ref.label) == (
        "Qwen/Qwen2.5-VL-7B-Instruct",
        "v1.0",
        "Qwen/Qwen2.5-VL-7B-Instruct@v1.0",
    )
    (tmp_path / "Qwen" / "Qwen2.5-VL-7B-Instruct").mkdir(parents=True)
    here = parse_hf_spec("Qwen/Qwen2.5-VL-7B-Instruct")  # a folder of that name wins
    assert here.local and here.label == "Qwen2.5-VL-7B-Instruct"
    for spec in ("a/b/c", str(tmp_path / "missing"), "~/no/such", "./org/name", "name"):
        with pytest.raises(StreamspatialError, match="expected a local model folder or a Hug"):
            parse_hf_spec(spec)


def cli(*args: object, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    return subprocess.run(
        [sys.executable, "-m", "streamspatial", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**keep, **env},
    )


def run_args(bench, out, model) -> list[object]:
    data, videos = bench
    return ["run", "--data", data, "--videos", videos, "--out", out, "--model", model,
            "--policy", "uniform-2", "--max-tokens", 6, "--no-progress"]  # fmt: skip


def test_a_hub_id_runs_from_an_offline_cache_and_the_token_is_written_nowhere(
    hf_home, bench, tiny_model, tmp_path
):
    home, _ = hf_home
    env = {"HF_HOME": str(home), "HF_HUB_OFFLINE": "1", "HF_TOKEN": TOKEN}
    out = tmp_path / "hub-run"
    proc = cli(*run_args(bench, out, f"hf:{REPO}@v1"), "--batch-size", 4, env=env)
    assert proc.returncode == 0, proc.stderr
    records = read_records(out / PREDICTIONS)
    assert len(records) == 11 and all(r.error is None for r in records)
    assert {r.model for r in records} == {f"hf:{REPO}@v1"}
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["placement"] == {"device": "cpu", "dtype": "float32"}
    for path in out.rglob("*"):
        if path.is_file():
            assert TOKEN[:12].encode() not in path.read_bytes(), path
    assert TOKEN[:12] not in proc.stdout + proc.stderr
    # The very model of the folder: the same answers as a run from the folder itself.
    data, videos = bench
    local = streamspatial.evaluate(
        data, videos, model=f"hf:{tiny_model}", policy="uniform-2", max_tokens=6, progress=False
    )
    assert {r.key: r.raw_output for r in local.records} == {r.key: r.raw_output for r in records}


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    ("spec", "env", "says"),
    [
        ("tiny-org/absent", {"HF_HUB_OFFLINE": "1"}, "HF_HUB_OFFLINE forbids downloading it"),
        (f"{REPO}@v2", {"HF_HUB_OFFLINE": "1"}, f"hf download {REPO} --revision v2"),
        ("tiny-org/absent", {"HF_ENDPOINT": "closed"}, "the Hugging Face Hub cannot be reached"),
    ],
)
def test_a_model_that_cannot_be_had_is_one_line_and_no_run_folder(
    hf_home, bench, tmp_path, spec, env, says
):
    home, _ = hf_home
    if env.get("HF_ENDPOINT") == "closed":  # a Hub nobody answers for, on loopback
        env = {"HF_ENDPOINT": f"http://127.0.0.1:{closed_port()}"}
    out = tmp_path / "run"
    proc = cli(*run_args(bench, out, f"hf:{spec}"), env={"HF_HOME": str(home), **env})
    # Unreachable, huggingface_hub warns of its retries first; the verdict is the last line.
    last = proc.stderr.splitlines()[-1]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert last.startswith(f"error: hf:{spec}: not in the Hugging Face cache")
    assert says in last and str(home / "hub") in last
    if "HF_HUB_OFFLINE" in env:
        assert proc.stderr.count("\n") == 1, proc.stderr
    assert not out.exists()
