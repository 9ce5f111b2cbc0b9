"""A folder holds one benchmark, and options that cannot make one are refused before anything
is rendered: each refusal is one line, exit 2, and leaves every file as it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from generate_fixtures import files_of
from streamspatial.cli import main
from streamspatial.core.benchmark_folder import claimed, fingerprint
from streamspatial.core.errors import InputError
from streamspatial.sim import generate as gen_module
from streamspatial.sim.generate import generate_benchmark
from streamspatial.sim.pipeline.config import MINUTES, GenerateConfig

pytest.importorskip("mujoco")

# one small house, a 6 s walk at 96×72: a few seconds
ARGS = ["--houses", "1", "--minutes", "0.1", "--size", "96x72", "--fps", "5", "--rooms", "3",
        "--per-family", "1", "--no-prune", "--no-stretch", "--no-progress"]  # fmt: skip


def small(out: Path, **kw) -> GenerateConfig:
    base = dict(out=out, houses=1, minutes=0.1, seed=3, size=(96, 72), fps=5.0, rooms=3,
                per_family=1, prune=False)  # fmt: skip
    return GenerateConfig(**{**base, **kw})


def cli(capsys, *args: object) -> tuple[int, list[str]]:
    """Exit code and stderr's lines of ``streamspatial ARGS``."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err.strip().splitlines()


def snapshot(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Every file with its modification time and bytes."""
    return {
        p.relative_to(folder).as_posix(): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def seed3(tmp_path_factory):
    return generate_benchmark(small(tmp_path_factory.mktemp("seed3") / "bench"))


def test_another_seed_is_refused_and_nothing_changes(seed3, capsys):
    before = snapshot(seed3.out)
    code, err = cli(capsys, "sim", "generate", "--out", seed3.out, "--seed", "4", *ARGS)
    assert code == 2 and len(err) == 1
    assert f"--out {seed3.out} holds another benchmark (seed 3 there, 4 asked)" in err[0]
    assert "--force" in err[0]
    assert snapshot(seed3.out) == before
    assert sorted(p.name for p in seed3.out.parent.iterdir()) == ["bench"]
    # --resume continues only the same options
    code, err = cli(capsys, "sim", "generate", "--out", seed3.out, "--seed", "4", "--resume", *ARGS)
    assert code == 2 and "holds another benchmark (seed 3 there, 4 asked)" in err[0]
    assert snapshot(seed3.out) == before


def test_the_manifest_holds_the_configuration_and_its_fingerprint(seed3):
    manifest = json.loads((seed3.out / "manifest.json").read_text())
    configuration = {k: v for k, v in manifest.items() if k in gen_module._configuration(
        small(seed3.out))}  # fmt: skip
    assert configuration["seed"] == 3 and configuration["size"] == [96, 72]
    assert manifest["generation"] == fingerprint(gen_module._configuration(small(seed3.out)))
    assert manifest["encoder"]["threads"] == 1 and manifest["encoder"]["codec"] == "libx264"
    assert not {"workers", "resume", "force", "executor", "address"} & set(manifest)


def test_a_folder_of_other_files_is_refused_even_with_force(tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    code, err = cli(capsys, "sim", "generate", "--out", out, *ARGS)
    assert code == 2 and len(err) == 1 and "is not empty and holds no benchmark" in err[0]
    code, err = cli(capsys, "sim", "generate", "--out", out, "--force", *ARGS)
    assert code == 2 and len(err) == 1
    assert "--force replaces only generated files: it also holds notes.txt" in err[0]
    assert [p.name for p in out.iterdir()] == ["notes.txt"]
    assert (out / "notes.txt").read_text() == "keep me"


def test_force_replaces_another_benchmark_and_a_failure_puts_it_back(seed3, tmp_path, monkeypatch):
    import shutil

    out = tmp_path / "bench"
    shutil.copytree(seed3.out, out)
    before = snapshot(out)

    def interrupted(cfg, folder, *args):
        (folder / "manifest.json").write_text("{}")
        (folder / "half.mp4").write_bytes(b"")
        raise KeyboardInterrupt

    monkeypatch.setattr(gen_module, "_generate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        generate_benchmark(small(out, seed=4, force=True))
    assert snapshot(out) == before  # the seed-3 benchmark is back, nothing of seed 4 left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench"]
    monkeypatch.undo()
    four = generate_benchmark(small(out, seed=4, force=True))
    assert json.loads((out / "manifest.json").read_text())["seed"] == 4
    assert files_of(out) == files_of(generate_benchmark(small(tmp_path / "four", seed=4)).out)
    assert not set(seed3.episodes) & set(four.episodes)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench", "four"]


def test_an_interrupted_folder_is_continued_by_the_same_options_only(tmp_path, monkeypatch):
    """The configuration is written before the first walk is planned: an interrupted run's
    folder is the same benchmark to --resume, and another one to any other options."""
    out = tmp_path / "bench"

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(gen_module, "plan_all", stop)
    with pytest.raises(KeyboardInterrupt):
        generate_benchmark(small(out))
    monkeypatch.undo()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 3 and manifest["episodes"] == []
    with pytest.raises(InputError, match=r"houses 1 there, 2 asked"):
        generate_benchmark(small(out, houses=2, resume=True))
    assert generate_benchmark(small(out, resume=True)).items


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        ("--per-family", "0", "--per-family must be at least 1, got 0"),
        ("--per-family", "-2", "--per-family must be at least 1, got -2"),
        ("--minutes", "0", "--minutes must be between 0.1 and 30, got 0"),
        ("--minutes", "-1", "--minutes must be between 0.1 and 30, got -1"),
        ("--minutes", "45", "--minutes must be between 0.1 and 30, got 45"),
    ],
)
def test_options_that_cannot_make_a_benchmark_are_refused_before_rendering(
    tmp_path, capsys, monkeypatch, flag, value, words
):
    def never(*args, **kwargs):
        raise AssertionError("planned or rendered")

    monkeypatch.setattr(gen_module, "plan_all", never)
    out = tmp_path / "out"
    i = ARGS.index(flag)
    args = [*ARGS[:i], flag, value, *ARGS[i + 2 :]]
    code, err = cli(capsys, "sim", "generate", "--out", out, *args)
    assert code == 2 and len(err) == 1 and words in err[0]
    assert not out.exists()
    # the one place the range is settled
    assert MINUTES == (0.1, 30.0)


def test_claim_takes_a_new_or_empty_folder_and_refuses_a_file(tmp_path):
    with claimed(tmp_path / "new", {"seed": 1}) as folder:
        assert folder.is_dir()
    (tmp_path / "empty").mkdir()
    with claimed(tmp_path / "empty", {"seed": 1}):
        pass
    (tmp_path / "file").write_text("x")
    with (
        pytest.raises(InputError, match="a file, not a folder"),
        claimed(tmp_path / "file", {"seed": 1}),
    ):
        pass
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text("{not json")
    with (
        pytest.raises(InputError, match=r"manifest\.json that cannot be read"),
        claimed(tmp_path / "bad", {"seed": 1}),
    ):
        pass
    assert os.listdir(tmp_path / "bad") == ["manifest.json"]
