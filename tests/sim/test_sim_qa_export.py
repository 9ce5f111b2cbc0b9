"""Generated benchmarks go through the same readers as published ones, and are reproducible."""

from __future__ import annotations

import gzip
import itertools
import json
import math
import os
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from streamspatial.bench.registry import check_benchmark
from streamspatial.cli import main
from streamspatial.core.schema import AnswerType
from streamspatial.sim.pipeline.config import SPLIT_BASE, SPLIT_SPAN, GenerateConfig, house_seeds
from streamspatial.sim.qa import FAMILIES
from streamspatial.sim.qa.export import read_items

pytest.importorskip("mujoco")


# STREAMSPATIAL_TEST_SEED=N runs these over other houses locally (see test_sim_qa_answers).
SHIFT = int(os.environ.get("STREAMSPATIAL_TEST_SEED", "0"))


def small(out, **kw) -> GenerateConfig:
    base = dict(
        out=out,
        houses=2,
        seed=3 + SHIFT,
        minutes=0.5,
        size=(96, 72),
        identity_turns=3,
        rooms=4,
        per_family=2,
    )
    base.update(kw)
    return GenerateConfig(**base)


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    from streamspatial.sim.generate import generate_benchmark

    stages = []
    result = generate_benchmark(
        small(tmp_path_factory.mktemp("gen")), lambda s, d, t: stages.append((s, d, t))
    )
    return result, stages


def test_every_file_loads_through_its_adapter_with_no_problem(bench):
    result, _ = bench
    assert {"s3", "ovos", "vcbench", "ucs"} <= set(result.files)
    by_id = {it.id: it for it in result.items}
    for fmt in ("s3", "ovos", "vcbench", "ucs"):
        adapter, loaded = check_benchmark(result.files[fmt], "auto", result.videos)
        assert adapter.name == fmt
        assert loaded.problems == []
        assert len(loaded.items) == sum(it.benchmark == fmt for it in result.items)
        for got in loaded.items:
            want = by_id[str(got.id)]
            assert [q.time for q in got.queries] == [q.time for q in want.queries]
            assert [q.answer for q in got.queries] == [q.answer for q in want.queries]
            assert got.question == want.question
            assert [o.display() for o in got.options] == [o.display() for o in want.options]
            assert got.answer_type == want.answer_type
            if fmt == "s3":
                assert got.depends_on == want.depends_on
            if fmt in ("s3", "ucs"):  # the rules agent reads which task is asked
                assert got.intent == want.intent and want.intent
            if fmt == "ucs":  # whole seconds, the open-ended answer kept beside the letter
                assert got.queries[0].time == int(got.queries[0].time)
                assert got.meta["answer"] == want.meta["answer"]
                assert (got.task.category, got.task.subcategory) == (
                    want.task.category,
                    want.task.subcategory,
                )


def test_ucs_file_is_the_released_json_array_with_open_direction_answers(bench):
    import json

    result, _ = bench
    rows = json.loads(result.files["ucs"].read_text())
    assert rows and {r["qtype"] for r in rows} >= {"Ego-centric Position"}
    for r in rows:
        assert set(r) >= {
            "qid",
            "video_uid",
            "question",
            "question_timestamps",
            "options",
            "answer_label",
            "answer",
            "category",
            "subcategory",
            "qtype",
        }
        h, m, sec = (int(x) for x in r["question_timestamps"].split(":"))
        assert all(e < 3600 * h + 60 * m + sec for _, e in r["evidence"])
        if r["qtype"] == "Ego-centric Position":
            assert (
                r["answer"].startswith("It is ") and r["answer"] != r["options"][r["answer_label"]]
            )


@pytest.mark.parametrize("fmt", ["s3", "ovos", "vcbench", "ucs"])
def test_validate_command_accepts_generated_files(bench, fmt, capsys):
    result, _ = bench
    with pytest.raises(SystemExit) as exc:
        main(["validate", str(result.files[fmt]), "--videos", str(result.videos)])
    assert exc.value.code == 0, capsys.readouterr()


def test_items_file_keeps_intents_and_manifest_counts(bench):
    result, _ = bench
    assert read_items(result.out) == sorted(
        result.items, key=lambda it: (it.video, it.queries[0].time, it.id)
    )
    manifest = json.loads((result.out / "manifest.json").read_text())
    assert manifest["items"] == len(result.items)
    assert manifest["split"] == "eval"
    assert all(it.intent and it.intent["task"] for it in result.items)
    # families short of per_family × walks are named with what they made (30-s walks: many)
    made = Counter(it.meta.get("family") for it in result.items)
    assert manifest["shortfall"] == result.shortfall and result.shortfall
    for key, (n, asked) in result.shortfall.items():
        assert (n, asked) == (made[key], 2 * 2) and n < asked
    assert all(made[k] >= 4 for k in FAMILIES if k not in result.shortfall)


def test_progress_reaches_every_frame(bench):
    """Each stage reports its own count, in pipeline order, up to its total: walks planned,
    frames rendered, walks asked, …, files exported (the last report)."""
    result, stages = bench
    order = ["plan", "render", "ask", "fill", "prune", "export"]
    assert [s for s in dict.fromkeys(s for s, _, _ in stages)] == order
    for stage in order:
        done = [d for s, d, _ in stages if s == stage]
        assert done == sorted(done)
    frames = 0
    for ep in result.episodes:
        with gzip.open(result.videos / "streamspatial-sim" / f"{ep}.mp4.meta.json.gz") as f:
            frames += len(json.loads(f.read())["frames"])
    assert [(s, d, t) for s, d, t in stages if s == "render"][-1] == ("render", frames, frames)
    n = len(result.episodes)
    assert ("plan", n, n) in stages and ("ask", n, n) in stages
    assert stages[-1] == ("export", len(result.files), len(result.files))


def test_identity_probe_asks_every_turn_and_answer_stays_one(bench):
    result, _ = bench
    probes = [it for it in result.items if it.intent["task"] == "identity_persistence"]
    assert len(probes) == 1
    it = probes[0]
    assert it.task.subcategory == "O2-Unique" and it.answer_type is AnswerType.NUMBER
    assert all(q.answer == 1 for q in it.queries)
    assert len(it.queries) >= 2
    assert it.intent["params"]["turns"] == 3
    times = [q.time for q in it.queries]
    assert times == sorted(times)


def test_same_seed_same_benchmark(tmp_path):
    from streamspatial.sim.generate import generate_benchmark

    a = generate_benchmark(small(tmp_path / "a", houses=1, minutes=0.3, identity_turns=0))
    b = generate_benchmark(small(tmp_path / "b", houses=1, minutes=0.3, identity_turns=0))
    assert (a.out / "items.jsonl").read_bytes() == (b.out / "items.jsonl").read_bytes()
    for ep in a.episodes:
        name = f"{ep}.mp4.meta.json.gz"
        assert (a.videos / "streamspatial-sim" / name).read_bytes() == (
            b.videos / "streamspatial-sim" / name
        ).read_bytes()
    c = generate_benchmark(
        small(tmp_path / "c", houses=1, minutes=0.3, identity_turns=0, seed=4 + SHIFT)
    )
    assert (c.out / "items.jsonl").read_bytes() != (a.out / "items.jsonl").read_bytes()


@given(seed_a=st.integers(0, 10**6), seed_b=st.integers(0, 10**6), n=st.integers(1, 20))
def test_train_and_eval_houses_never_overlap(seed_a, seed_b, n):
    train = house_seeds("train", seed_a, n)
    evals = house_seeds("eval", seed_b, n)
    assert not set(train) & set(evals)
    assert len(set(train)) == n and len(set(evals)) == n
    assert all(SPLIT_BASE["train"] <= s < SPLIT_BASE["train"] + SPLIT_SPAN for s in train)
    assert house_seeds("eval", seed_b, n) == evals


@pytest.mark.parametrize(
    "args, words",
    [
        (["--size", "320by240"], "WIDTHxHEIGHT"),
        (["--size", "321x240"], "even"),
        (["--split", "test"], "train or eval"),
        (["--houses", "0"], "--houses"),
        (["--minutes", "-1"], "--minutes"),
    ],
)
def test_bad_generate_options_are_one_line(tmp_path, capsys, args, words):
    with pytest.raises(SystemExit) as exc:
        main(["sim", "generate", "--out", str(tmp_path / "x"), *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0]


def test_generate_command_writes_a_benchmark(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "sim",
                "generate",
                "--out",
                str(tmp_path / "g"),
                "--houses",
                "1",
                "--minutes",
                "0.25",
                "--size",
                "64x48",
                "--spin-turns",
                "0",
                "--split",
                "train",
            ]
        )
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "items over 1 videos" in out
    assert "made fewer questions than asked" in out and "0.25-minute walks" in out
    manifest = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert manifest["split"] == "train" and manifest["house_seeds"][0] >= SPLIT_BASE["train"]


@pytest.mark.slow
def test_identity_probe_over_sixty_turns_asks_about_one_object_that_keeps_returning(tmp_path):
    """Seed 001 §4.3.2: one object, a camera spinning 60 times; the count must stay 1."""
    from streamspatial.scene.camera import min_pixels_for
    from streamspatial.scene.types import load_episode_meta
    from streamspatial.sim.house.layout import generate_house
    from streamspatial.sim.qa import QuestionGenerator
    from streamspatial.sim.render.episode import render_episode
    from streamspatial.sim.walk.spin import SPIN_SPEED, spin_trajectory

    house = generate_house(house_seeds("eval", SHIFT, 1)[0], n_rooms=4)
    spin = spin_trajectory(house, turns=60, fps=3, seed=SHIFT)
    paths = render_episode(house, spin, tmp_path, (64, 48), name="spin")
    meta = load_episode_meta(paths.video)
    (item,) = QuestionGenerator(SHIFT).identity_items(meta, video="spin.mp4", episode_id="spin")
    (target,) = item.intent["instances"]
    category = next(o.category for o in house.objects if o.instance_id == target)
    assert [o.category for o in house.objects].count(category) == 1
    assert item.intent["params"] == {"category": category, "turns": 60}
    assert len(item.queries) == 60 and all(q.answer == 1 for q in item.queries)
    turn_s = 2 * math.pi / SPIN_SPEED
    gaps = [b.time - a.time for a, b in itertools.pairwise(item.queries)]
    assert all(abs(g - turn_s) <= 1 / meta.fps + 1e-6 for g in gaps)
    # The object really comes back into view turn after turn.
    px = min_pixels_for(64, 48)
    turns_seen = {
        int(f.time // turn_s)
        for f in meta.frames
        if any(v.instance_id == target and v.pixels >= px for v in f.visible)
    }
    assert len(turns_seen) >= 55


def test_resume_keeps_what_an_interrupted_run_rendered(bench, tmp_path):
    """A rerun with --resume renders only the missing walk and writes the same benchmark."""
    import shutil

    from streamspatial.core.errors import InputError
    from streamspatial.sim.generate import generate_benchmark

    result, _ = bench
    out = tmp_path / "again"
    shutil.copytree(result.out / "videos", out / "videos")
    shutil.copy(result.out / "manifest.json", out / "manifest.json")  # its options, first
    frames_dir = result.videos / "streamspatial-sim"
    walks = sorted(frames_dir.glob("*-walk.mp4"))
    lost = out / "videos" / "streamspatial-sim" / (walks[0].name + ".meta.json.gz")
    lost.unlink()  # interrupted while that walk was rendered: its video has no metadata yet
    kept = out / "videos" / "streamspatial-sim" / walks[1].name
    before = kept.stat().st_mtime_ns
    stages = []
    again = generate_benchmark(small(out, resume=True), lambda *a: stages.append(a))
    assert kept.stat().st_mtime_ns == before  # not rendered again
    assert [a for a in stages if a[0] == "plan"][-1] == ("plan", 1, 1)  # the lost walk only
    walk_frames = round(0.5 * 60 * 10)
    assert [a for a in stages if a[0] == "render"][-1] == ("render", walk_frames, walk_frames)
    assert [it.model_dump() for it in again.items] == [it.model_dump() for it in result.items]
    manifest = json.loads((out / "manifest.json").read_text())
    assert "resume" not in manifest and "workers" not in manifest
    assert "executor" not in manifest and "address" not in manifest
    # Other settings are refused in one line, nothing rendered over them.
    with pytest.raises(InputError, match=r"holds another benchmark \(fps 10 there, 5 asked\)"):
        generate_benchmark(small(out, resume=True, fps=5.0))
    assert kept.stat().st_mtime_ns == before
