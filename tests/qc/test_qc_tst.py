"""The blind stress test: house-grouped cross-validation, fair model choice, the known biases.

Every benchmark here is synthetic and small (a few hundred query points), written through the
published OVO-S and S3 writers where the CLI reads it back, so each test runs in seconds.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from streamspatial.bench.ovos import write_ovos_jsonl
from streamspatial.bench.s3 import write_s3_jsonl
from streamspatial.cli import app
from streamspatial.core.schema import AnswerType, Item, Option, QueryPoint, TaskLabels
from streamspatial.qc.tst import ProbeConfig, _select, folds_of, stress_test
from streamspatial.qc.tst_features import Point, group_key, points_of

pytest.importorskip("sklearn")

ROOMS = ("kitchen", "bedroom", "bathroom", "living room", "study", "hallway", "dining room")
OBJECTS = ("sofa", "lamp", "mug", "chair", "plant", "laptop", "book", "vase")


def video(house: int, kind: str = "walk") -> str:
    return f"streamspatial-sim/house-{house:07d}-{kind}.mp4"


def choice(task, i, house, question, options, answers, times=None, code="2.2.1") -> Item:
    answers = [answers] if isinstance(answers, int) else answers
    times = times or [10.0 + i % 50]
    return Item(
        benchmark="ovos",
        id=f"{task.replace(' ', '-')}-{i}",
        video=video(house),
        question=question,
        answer_type=AnswerType.CHOICE,
        options=tuple(Option(letter="ABCDEFG"[j], text=o) for j, o in enumerate(options)),
        queries=tuple(
            QueryPoint(index=k, time=t, answer="ABCDEFG"[a])
            for k, (t, a) in enumerate(zip(times, answers, strict=True))
        ),
        task=TaskLabels(level="L2", category="2.2", subcategory=code, task=task),
        source="synthetic",
    )


def number(task, i, house, question, value, time=10.0) -> Item:
    return Item(
        benchmark="s3",
        id=f"{task}-{i}",
        video=video(house),
        question=question,
        answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=time, answer=float(value)),),
        task=TaskLabels(category="Ego-centric", subcategory="Num", task=task),
        source="synthetic",
    )


def fair_rooms(n=100, houses=20, seed=0, task="Out-of-View Localization") -> list[Item]:
    """Answers uniform over letters, distractors drawn like the answers: nothing to learn."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        opts = rng.sample(ROOMS, 4)
        q = f"In which room is the {rng.choice(OBJECTS)} you saw earlier?"
        out.append(choice(task, i, i % houses, q, opts, rng.randrange(4)))
    return out


def fair_numbers(n=100, houses=20, seed=0) -> list[Item]:
    rng = random.Random(seed)
    return [
        number("spatial_distance", i, i % houses,
               f"What is the distance between the {rng.choice(OBJECTS)} and the "
               f"{rng.choice(OBJECTS)}? Answer in meters.", rng.uniform(0.5, 8.0))
        for i in range(n)
    ]  # fmt: skip


def probe(items, **kw):
    return {t.task: t for t in stress_test(items, ProbeConfig(**kw)).tasks}


# -- the folds -------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 12), min_size=2, max_size=25),
    k=st.integers(2, 6),
    seed=st.integers(0, 1000),
)
def test_no_house_is_in_two_folds_and_every_point_is_tested_once(sizes, k, seed):
    points = [
        Point(f"i{h}-{j}", 0, "t", f"house-{h}", "q", ("a", "b"), 0, None, 1.0, 1)
        for h, n in enumerate(sizes)
        for j in range(n)
    ]
    folds = folds_of(points, k, seed)
    assert len(folds) == min(k, len(sizes))
    tested = np.concatenate(folds)
    assert sorted(tested.tolist()) == list(range(len(points)))
    owner = {}
    for f, idx in enumerate(folds):
        for i in idx:
            assert owner.setdefault(points[i].group, f) == f


def test_group_is_the_house_for_simulator_videos_else_the_video():
    walk, spin = choice("t", 0, 7, "q", ["a", "b"], 0), choice("t", 1, 7, "q", ["a", "b"], 0)
    spin = spin.model_copy(update={"video": video(7, "spin")})
    assert group_key(walk) == group_key(spin) == "house-0000007"
    other = walk.model_copy(update={"video": "scannet/scene0001.mp4"})
    assert group_key(other) == "scannet/scene0001.mp4"


def test_model_is_chosen_on_the_other_folds_never_on_the_test_fold():
    folds = [np.array([0, 1]), np.array([2, 3]), np.array([4, 5])]
    # "lucky" is perfect on fold 0 only; "steady" is right half the time everywhere.
    scores = {
        "steady": np.array([1, 0, 1, 0, 1, 0], dtype=float),
        "lucky": np.array([1, 1, 0, 0, 0, 0], dtype=float),
    }
    chosen, names = _select(scores, folds)
    assert names == ["steady", "steady", "steady"]
    assert chosen.tolist() == scores["steady"].tolist()


# -- no false alarms on unbiased benchmarks --------------------------------------------------


def test_unbiased_tasks_are_not_flagged_though_the_best_of_six_may_beat_chance():
    items = fair_rooms(seed=1) + fair_rooms(seed=2, task="Chronological Recall") + fair_numbers()
    res = probe(items)
    for t in res.values():
        assert t.judged and not t.flagged, (t.task, t.blind, t.chance, t.allowance)
        assert t.best_of >= t.blind  # choosing on the test data can only look better
    room = res["ovos/Out-of-View Localization"]
    assert room.chance == pytest.approx(0.25)
    assert set(room.models) == {
        "logreg", "forest", "letter", "answer", "longest", "overlap", "time"
    }  # fmt: skip
    assert set(res["s3/spatial_distance"].models) == {"median", "ridge", "forest", "time"}


def test_the_order_of_the_items_changes_no_score():
    items = fair_rooms(seed=1) + fair_numbers()
    shuffled = list(items)
    random.Random(5).shuffle(shuffled)
    a, b = probe(items), probe(shuffled)
    assert {t: (r.blind, r.models) for t, r in a.items()} == {
        t: (r.blind, r.models) for t, r in b.items()
    }


# -- the biases the probe must find -------------------------------------------------------------


def test_answer_that_follows_the_query_index_is_found():
    """Revisit Counting as first generated: at the k-th query point the answer is k + 1."""
    rng = random.Random(3)
    items = []
    for i in range(40):
        n = rng.randint(2, 4)
        times = sorted(rng.uniform(10, 120) for _ in range(n))
        items.append(choice("Revisit Counting", i, i % 12,
                            f"How many separate times have you been in the {rng.choice(ROOMS)} "
                            "so far, counting the current visit?",
                            ["1", "2", "3", "4", "5"], list(range(n)), times))  # fmt: skip
    t = probe(items)["ovos/Revisit Counting"]
    assert t.flagged and t.blind > 0.9 and t.best_model == "forest"


def test_one_winning_answer_text_is_found():
    """Transient Count Memory as first generated: "2" wins most of the time."""
    rng = random.Random(4)
    items = []
    for i in range(80):
        start = rng.randint(1, 2)
        opts = [str(v) for v in range(start, start + 4)]
        right = opts.index("2") if rng.random() < 0.65 else rng.randrange(4)
        items.append(choice("Transient Count Memory", i, i % 16,
                            f"How many {rng.choice(OBJECTS)}s have you seen in total so far?",
                            opts, right))  # fmt: skip
    t = probe(items)["ovos/Transient Count Memory"]
    assert t.flagged and t.best_model in {"answer", "logreg", "forest"}


@pytest.mark.parametrize("kind", ["letter", "longest", "overlap", "never-backward"])
def test_position_length_wording_and_a_never_correct_option_are_found(kind):
    rng = random.Random(5)
    items = []
    # a never-correct option out of three is worth ~17 points: flagged beyond the noise
    # allowance (4 SE) only with a few hundred points
    for i in range(300 if kind == "never-backward" else 120):
        if kind == "never-backward":
            opts = ["Moving forward", "Moving backward", "Staying in place"]
            rng.shuffle(opts)
            right = rng.choice([j for j, o in enumerate(opts) if o != "Moving backward"])
            q = "Is the camera currently moving forward, moving backward, or staying in place?"
        else:
            opts = rng.sample(ROOMS, 4)
            obj = rng.choice(OBJECTS)
            right = 0 if kind == "letter" and rng.random() < 0.7 else rng.randrange(4)
            if kind == "longest":
                opts[right] = f"the {opts[right]} next to the window, on the left"
            q = f"In which room is the {obj}?"
            if kind == "overlap":
                q = f"In which room, the {opts[right]} perhaps, is the {obj}?"
        items.append(choice("Ego-motion Translation", i, i % 20, q, opts, right))
    t = probe(items)["ovos/Ego-motion Translation"]
    assert t.flagged, (kind, t.models, t.allowance)


def revisits_on_the_clock(n=104, houses=20, seed=9) -> list[Item]:
    """Revisit Detection as one-minute walks made it (seed 777): "No" at any time, "Yes" only
    once the walk has come back to a room, in its last third; even overall."""
    rng = random.Random(seed)
    items = []
    for i in range(n):
        yes = i % 2 == 0
        t = rng.uniform(40, 60) if yes else rng.uniform(3, 60)
        opts = ["Yes", "No"] if rng.random() < 0.5 else ["No", "Yes"]
        items.append(choice("Revisit Detection", i, i % houses,
                            "Is the room you are in now one you had already been in earlier in "
                            "the video, before going to another room?",
                            opts, opts.index("Yes" if yes else "No"), [t]))  # fmt: skip
    return items


def test_an_answer_that_follows_the_clock_is_found_by_the_time_only_model():
    """Why pruning kept seed 777's Revisit Detection: the forest reads the time among thirty
    other features and missed it (0.50 there, under 0.6 here), and the model chosen per fold
    read chance; a forest on the time alone reads 0.84 (here over 0.7)."""
    t = probe(revisits_on_the_clock())["ovos/Revisit Detection"]
    assert t.flagged and t.best_model == "time" and t.models["time"] > 0.7, t.models
    assert t.models["forest"] < 0.6
    forest = probe(revisits_on_the_clock(), models=("forest",))["ovos/Revisit Detection"]
    assert not forest.flagged and not forest.strict
    only = probe(revisits_on_the_clock(), models=("time",))["ovos/Revisit Detection"]
    assert only.best_model == "time" and only.blind == t.models["time"] and only.flagged
    # the time-only model reads nothing but when: the same answers at shuffled times are chance
    rng = random.Random(1)
    fair = [
        it.model_copy(
            update={"queries": (it.queries[0].model_copy(update={"time": rng.uniform(3, 60)}),)}
        )
        for it in revisits_on_the_clock()
    ]
    t = probe(fair, models=("time",))["ovos/Revisit Detection"]
    assert not t.flagged and abs(t.blind - t.chance) < 0.12, (t.blind, t.allowance)


def test_a_number_that_grows_with_the_walk_is_found_by_the_time_only_model():
    """S3 area as first generated: the rooms visited so far, about 0.8 m² a second."""
    rng = random.Random(10)
    items = []
    for i in range(100):
        t = rng.uniform(5, 60)
        items.append(number("area", i, i % 20, "What is the total area of the rooms visited so "
                            "far? Answer in square meters.", 8 + 0.8 * t * rng.uniform(0.9, 1.1),
                            time=t))  # fmt: skip
    t = probe(items, models=("time",))["s3/area"]
    assert t.flagged and t.best_model == "time" and t.blind > t.chance + 0.3, t.models
    assert set(t.models) == {"median", "time"}  # the median is chance: always trained


def test_numbers_concentrated_on_one_value_are_flagged_by_the_median_cap():
    """explore_room_count as first generated: the answer is 1 in most items."""
    rng = random.Random(6)
    items = [
        number("explore_room_count", i, i % 15,
               f"How many {rng.choice(OBJECTS)}s are in the room you are in now?",
               1 if rng.random() < 0.75 else rng.randint(2, 4))
        for i in range(80)
    ]  # fmt: skip
    t = probe(items)["s3/explore_room_count"]
    assert t.chance > 0.6 and t.flagged and "median" in t.reason


def test_numbers_the_question_gives_away_are_found():
    """camera_displacement as first generated: the distance is ~0.8 m per second asked about."""
    rng = random.Random(7)
    items = []
    for i in range(90):
        s = rng.choice((1, 2, 3))
        items.append(number("camera_displacement", i, i % 15,
                            f"How far did the camera move over the past {s} seconds? "
                            "Answer in meters.", 0.8 * s * rng.uniform(0.93, 1.07)))  # fmt: skip
    t = probe(items)["s3/camera_displacement"]
    assert t.flagged and t.blind > 0.8 and t.best_model in {"ridge", "forest"}


def test_item_bias_scores_rank_the_items_a_blind_model_gets_right_first():
    rng = random.Random(8)
    items = fair_rooms(n=80, seed=8)
    leaky = []
    for i in range(80, 100):  # these name their answer in the question
        opts = rng.sample(ROOMS, 4)
        right = rng.randrange(4)
        leaky.append(choice("Out-of-View Localization", i, i % 20,
                            f"The {opts[right]} holds it: in which room is the lamp?",
                            opts, right))  # fmt: skip
    t = probe(items + leaky)["ovos/Out-of-View Localization"]
    assert set(t.item_bias) == {it.id for it in items + leaky}
    top = sorted(t.item_bias, key=t.item_bias.get, reverse=True)[:20]
    assert len(set(top) & {it.id for it in leaky}) >= 10  # 4 expected by chance


def test_few_items_are_reported_not_judged_and_one_house_is_not_cross_validated():
    res = probe(fair_rooms(n=12, houses=6), min_items=20)
    t = res["ovos/Out-of-View Localization"]
    assert not t.judged and not t.flagged and t.blind is not None
    one = probe(fair_rooms(n=30, houses=1))["ovos/Out-of-View Localization"]
    assert one.blind is None and "one house" in one.reason


# -- the command --------------------------------------------------------------------------------


def write_benchmark(folder, items_by_format):
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for fmt, (writer, items) in items_by_format.items():
        path = folder / f"{fmt}.jsonl"
        writer(items, path)
        files[fmt] = path.name
    (folder / "manifest.json").write_text(json.dumps({"files": {**files, "items": "items.jsonl"}}))
    return folder


def test_cli_flags_a_biased_folder_writes_json_and_exits_1(tmp_path):
    rng = random.Random(9)
    biased = []
    for i in range(60):
        opts = rng.sample(ROOMS, 4)
        right = 0 if rng.random() < 0.8 else rng.randrange(4)
        biased.append(choice("Out-of-View Localization", i, i % 12, "Where is the mug?", opts,
                             right))  # fmt: skip
    folder = write_benchmark(
        tmp_path / "bench",
        {"ovos": (write_ovos_jsonl, biased), "s3": (write_s3_jsonl, fair_numbers(n=60, houses=12))},
    )
    out = tmp_path / "blind.json"
    res = CliRunner().invoke(app, ["qc", "blind", str(folder), "--out", str(out)])
    assert res.exit_code == 1, res.output
    assert "ovos/Out-of-View Localization" in res.output and "BIASED" in res.output
    saved = json.loads(out.read_text())
    assert saved["flagged"] == ["ovos/Out-of-View Localization"]
    task = next(t for t in saved["tasks"] if t["task"] == "ovos/Out-of-View Localization")
    assert task["blind"] > 0.6 and task["models"]["letter"] > 0.6
    assert len(task["item_bias"]) == 60


def test_cli_passes_a_fair_file_and_reads_released_layouts(tmp_path):
    path = tmp_path / "ovos.jsonl"
    write_ovos_jsonl(fair_rooms(n=60, houses=12, seed=3), path)
    res = CliRunner().invoke(app, ["qc", "blind", str(path)])
    assert res.exit_code == 0, res.output
    assert "0 of 1 judged task(s) answerable blind" in res.output


def test_cli_strict_rule_uses_point_estimates(tmp_path):
    rng = random.Random(10)
    items = []
    for i in range(60):  # a mild letter bias: beyond 5 points, inside the noise allowance
        opts = rng.sample(ROOMS, 4)
        right = 0 if rng.random() < 0.15 else rng.randrange(4)
        items.append(choice("Out-of-View Localization", i, i % 12, "Where?", opts, right))
    path = tmp_path / "ovos.jsonl"
    write_ovos_jsonl(items, path)
    fair = CliRunner().invoke(app, ["qc", "blind", str(path), "--out", str(tmp_path / "f.json")])
    report = json.loads((tmp_path / "f.json").read_text())["tasks"][0]
    strict = CliRunner().invoke(app, ["qc", "blind", str(path), "--rule", "strict"])
    assert fair.exit_code == (1 if report["gap"] > report["allowance"] else 0)
    assert strict.exit_code == (1 if report["gap"] > 0.05 else 0)


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, capsys):
    from streamspatial.cli import main

    fair = tmp_path / "fair.jsonl"
    write_ovos_jsonl(fair_rooms(n=30), fair)
    with pytest.raises(SystemExit) as exc:
        main(["qc", "blind", str(fair), "--models", "time,clock"])
    assert exc.value.code == 2 and "--models: unknown model clock" in capsys.readouterr().err

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SystemExit) as exc:
        main(["qc", "blind", str(empty)])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["qc", "blind", str(tmp_path / "missing.jsonl")])
    assert exc.value.code == 2


def test_points_are_what_a_blind_model_may_read():
    it = choice("t", 0, 3, "Where is the mug?", ["kitchen", "study"], [1, 0], [5.0, 9.0])
    pts = points_of([it])
    assert [(p.index, p.correct, p.time, p.n_queries) for p in pts] == [
        (0, 1, 5.0, 2),
        (1, 0, 9.0, 2),
    ]
    # the video's length, as the file shows it: the latest query time asked on it
    later = choice("t", 1, 3, "Where is the cup?", ["kitchen", "study"], 0, [12.0])
    assert [p.time_frac for p in points_of([it, later])] == [5 / 12, 9 / 12, 1.0]
    assert pts[0].options == ("kitchen", "study") and pts[0].chance == 0.5
