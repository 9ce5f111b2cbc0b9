"""Training data as S3-Train makes it: ``sim generate --split train`` writes qa, explore and
fold records; fold targets hold only what the prefix showed; exploration labels, executed in
the environment as a run executes a model's actions, reveal their evidence; ``export-sft``
writes LLaMA-Factory and Qwen-VL data whose examples never show a frame after their t_q (the
exploration views, after t_q by design, are marked)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest

from agent_helpers import decide
from memory_agent_fixtures import EchoBackend
from streamspatial.agents import fold_memory as fm
from streamspatial.agents.exploration import offer_note
from streamspatial.agents.folding import FoldingAgent
from streamspatial.bench.registry import get_adapter
from streamspatial.core.errors import InputError
from streamspatial.core.schema import AnswerType
from streamspatial.eval.results import PREDICTIONS, read_records
from streamspatial.grading.extract import extract_action
from streamspatial.models.types import ImagePart, TextPart
from streamspatial.scene.camera import min_pixels_for
from streamspatial.scene.types import FrameRecord, Visible, load_episode_meta
from streamspatial.sim.explore.actions import parse_action
from streamspatial.sim.explore.plan import CANDIDATES
from streamspatial.sim.qa.export import read_items, videos_dir
from streamspatial.testing.openai_server import FakeOpenAIServer
from streamspatial.train import ExtraImage, Message, TrainingExample, check_explore, read_examples
from streamspatial.train.explore import OFFERED_STEPS, seen_by
from streamspatial.train.folds import fold_targets
from streamspatial.train.records import write_examples
from streamspatial.video.cache import ResizeSpec, decode_jpeg, encode_jpeg
from streamspatial.video.prefix import PrefixView, SourceStore
from streamspatial.video.sources import open_source
from train_fixtures import cli, generate_train

pytest.importorskip("mujoco")

IMAGE = "<image>"


@pytest.fixture(scope="module")
def gen(tmp_path_factory):
    out, printed = generate_train(tmp_path_factory.mktemp("gen"))
    return SimpleNamespace(out=out, printed=printed, records=read_examples(out / "train.jsonl"),
                           items=read_items(out))  # fmt: skip


@pytest.fixture(scope="module")
def exports(gen, tmp_path_factory):
    root = tmp_path_factory.mktemp("sft")
    got = {}
    for fmt in ("llamafactory", "qwen-vl"):
        code, printed = cli("export-sft", gen.out, "--format", fmt, "--out", root / fmt,
                            "--policy", "uniform-6", "--frame-size", "48")  # fmt: skip
        assert code == 0, printed
        got[fmt] = (root / fmt, printed)
    return got


def _meta(gen, video: str):
    return load_episode_meta(videos_dir(gen.out) / (video + ".meta.json.gz"))


# -- generate ---------------------------------------------------------------------------------


def test_generate_writes_all_three_kinds_and_says_so(gen) -> None:
    kinds = Counter(r.kind for r in gen.records)
    asked = sum(len(it.queries) for it in gen.items if not it.explorable)
    explored = sum(len(it.queries) for it in gen.items if it.explorable)
    assert explored  # the split has explorable items, each planned, confirmed, exampled
    acts = sum(1 for r in gen.records if r.kind == "explore" and r.meta.get("step"))
    assert kinds == {"qa": asked, "explore": acts + explored, "fold": 2}  # folds at 10, 20 s
    line = (f"training records: {asked} qa, {acts + explored} explore, 2 fold; {explored} "
            "exploration plans executed in Explore-v0, each showing its evidence")  # fmt: skip
    assert line in gen.printed and "train.jsonl" in gen.printed


def test_qa_records_ask_as_a_run_asks(gen) -> None:
    by_id = {it.id: it for it in gen.items}
    records = [r for r in gen.records if r.kind == "qa"]
    assert {r.meta["item"] for r in records} == {it.id for it in gen.items if not it.explorable}
    chained = 0
    for r in records:
        item = by_id[r.meta["item"]]
        query = item.queries[int(r.id.rsplit(":", 1)[1])]
        adapter = get_adapter(item.benchmark)
        prior = None
        if item.depends_on is not None:  # teacher forcing: the earlier turn's true answer
            dep = by_id[item.depends_on]
            truth = dep.queries[-1].answer
            text = next((o.text for o in dep.options if o.letter == truth), None)
            prior = {dep.id: text if text is not None else f"{float(truth):g}"}
            chained += 1
        user = next(m for m in r.messages if m.role == "user")
        assert user.prefix and user.text == adapter.prompt(item, query, prior_answers=prior)
        assert r.t_q == query.time and r.frames is None  # the export's policy picks frames
        want = f"{float(query.answer):g}" if item.answer_type is AnswerType.NUMBER else query.answer
        assert r.target == str(want)
        system = adapter.system_prompt(item)
        assert (r.messages[0].text if r.messages[0].role == "system" else None) == system
        assert len(user.images) == sum(o.image is not None for o in item.options)
    assert chained  # S3 chains are among them


def test_fold_targets_name_only_objects_already_seen(gen) -> None:
    folds = [r for r in gen.records if r.kind == "fold"]
    assert [r.t_q for r in folds] == [10.0, 20.0]
    for r in folds:
        meta = _meta(gen, r.video)
        k = int(r.t_q * meta.fps + 1e-9)
        threshold = min_pixels_for(meta.intrinsics.width, meta.intrinsics.height)
        first: dict[int, float] = {}
        for rec in meta.frames[: k + 1]:
            for v in (*rec.visible, *rec.dynamic):
                if v.pixels >= threshold:
                    first.setdefault(v.instance_id, rec.time)
        memory = fm.parse_memory(r.target, r.t_q).memory
        assert memory is not None and memory.objects
        keys = {int(i): key for i, key in r.meta["keys"].items()}
        objects = {o.instance_id: o for o in meta.house.objects}
        for obj in memory.objects:
            key = keys[obj.id]
            assert key in first, f"fold at {r.t_q} s names object {key}, not seen by then"
            assert obj.first_seen == round(first[key], 1) and obj.last_seen <= r.t_q
            if key in objects:  # a house object: its own words
                assert obj.category == objects[key].category.replace("_", " ")
                assert obj.color == objects[key].color
        # memory ids number objects in the order they were first seen
        order = sorted(keys, key=lambda i: (first[keys[i]], i))
        assert order == sorted(keys)
        assert r.frames == tuple(float(t) for t in range(int(r.t_q) - 9, int(r.t_q) + 1))


def test_fold_targets_read_the_prefix_only(gen) -> None:
    """What comes after a fold time cannot change its target: the later frames replaced by
    frames that see every object of the house, or cut off, give the very same memory."""
    video = next(r.video for r in gen.records if r.kind == "fold")
    meta = _meta(gen, video)
    k = int(10.0 * meta.fps)
    box = (0, 0, 9, 9)
    everything = tuple(Visible(o.instance_id, 10_000, box, 1.0) for o in meta.house.objects)
    later = tuple(FrameRecord(f.index, f.pose, f.room_id, everything) for f in meta.frames[k + 1 :])
    doctored = dataclasses.replace(meta, frames=(*meta.frames[: k + 1], *later))
    cut = dataclasses.replace(meta, frames=meta.frames[: k + 1])
    truth = next(fold_targets(meta))
    assert truth.time == 10.0
    for other in (doctored, cut):
        got = next(fold_targets(other))
        assert got.memory == truth.memory and got.keys == truth.keys
    assert len(list(fold_targets(doctored))[1].memory.objects) > len(truth.memory.objects)


def test_the_folding_agent_asks_what_training_shows_and_reads_the_targets_back(gen) -> None:
    """Fed the targets as a model's replies, the agent's JSON fold requests are the training
    examples' prompts, frame for frame, and its memory is the target it was given."""
    folds = [r for r in gen.records if r.kind == "fold"]
    targets = {r.t_q: r.target for r in folds}
    backend = EchoBackend(lambda req: targets[req.query_time])
    agent = FoldingAgent(memory_format="json")
    video = videos_dir(gen.out) / folds[0].video
    t_q = 23.0
    view = PrefixView(SourceStore(open_source(video)), t_q)
    item = SimpleNamespace(id="q", video=folds[0].video, letters="AB", benchmark="s3",
                           task=SimpleNamespace(task="t"), answer_type=None)  # fmt: skip
    query = SimpleNamespace(time=t_q, evidence=(), index=0)
    adapter = SimpleNamespace(prompt=lambda *a, **k: "Q?", system_prompt=lambda it: None)
    decision = decide(agent, view, item, query, adapter, backend)
    assert [r.query_time for r in backend.requests] == [10.0, 20.0]
    for req, rec in zip(backend.requests, folds, strict=True):
        assert req.parts[-1].text == rec.messages[1].text
        assert [p.time for p in req.parts if isinstance(p, ImagePart)] == list(rec.frames)
        assert req.system == rec.messages[0].text
    assert agent.state.memory == targets[20.0]
    texts = [p.text for p in decision.request.parts if isinstance(p, TextPart)]
    assert f"Memory at 20 s: {targets[20.0]}" in texts
    assert decision.diagnostics.as_dict()["fold_malformed"] == 0


# -- explore -----------------------------------------------------------------------------------


def _explored(gen) -> dict[str, list[TrainingExample]]:
    """Each explorable query point's explore examples, in file order (act1, …, answer)."""
    groups: dict[str, list[TrainingExample]] = defaultdict(list)
    for r in gen.records:
        if r.kind == "explore":
            groups[r.id.rsplit(":", 1)[0]].append(r)
    return groups


def test_explore_records_ask_as_a_run_with_explore_steps_asks(gen) -> None:
    by_id = {it.id: it for it in gen.items}
    groups = _explored(gen)
    assert set(groups) == {f"explore:{it.benchmark}:{it.id}:{q.index}"
                           for it in gen.items if it.explorable for q in it.queries}  # fmt: skip
    for key, (*acts, answer) in groups.items():
        item = by_id[answer.meta["item"]]
        query = item.queries[int(key.rsplit(":", 1)[1])]
        adapter = get_adapter(item.benchmark)
        assert acts and [r.id for r in acts] == [f"{key}:act{j}" for j in range(1, len(acts) + 1)]
        assert answer.id == f"{key}:answer" and len(acts) <= OFFERED_STEPS
        shown = 0
        for j, r in enumerate((*acts, answer)):
            user = next(m for m in r.messages if m.role == "user")
            assert user.prefix and r.frames is None and r.t_q == query.time
            assert user.text == f"{offer_note(OFFERED_STEPS - j)}\n{adapter.prompt(item, query)}"
            assert r.messages[0].text == adapter.system_prompt(item)
            views = [im for im in user.images if im.source == "explore"]
            assert len(views) >= shown and all(v.time >= r.t_q for v in views)  # ≥ t_q, marked
            assert [v.time for v in views] == sorted(v.time for v in views)
            shown = len(views)
        for j, r in enumerate(acts, 1):
            action = extract_action(r.target)  # what the harness reads from a model's reply
            assert r.target == json.dumps(dict(json.loads(r.target)))  # plain JSON, nothing else
            assert action == r.meta["actions"][j - 1] == answer.meta["actions"][j - 1]
            assert parse_action(action) in CANDIDATES and r.meta["step"] == j
        assert answer.target == f"{float(query.answer):g}"  # the answer: the room's count
        # the evidence: the counted objects the prefix had not shown, as the generator hid them
        assert answer.meta["reveal"] == sorted(item.intent["params"]["hidden"])
        meta = _meta(gen, item.video)
        threshold = min_pixels_for(meta.intrinsics.width, meta.intrinsics.height)
        assert not set(answer.meta["reveal"]) & seen_by(meta, answer.t_q, threshold)
        assert all(n >= threshold for n in answer.meta["revealed"].values())
        views = [im for m in answer.messages for im in m.images]
        assert all((gen.out / v.path).is_file() for v in views)
        assert views[0].caption.startswith("Exploration step 1: ")


def test_every_exploration_label_executed_again_reveals_its_evidence(gen) -> None:
    """The labels, read back by the harness's parser and executed in a fresh environment,
    show every object to reveal and render exactly the views the answer example shows."""
    report = check_explore(gen.out)
    groups = _explored(gen)
    assert report.failed == []
    assert report.query_points == report.revealed == report.identical == len(groups) > 0
    assert report.actions == sum(len(g) - 1 for g in groups.values())


def test_the_label_check_can_fail(gen, tmp_path) -> None:
    """A label that shows other views, or evidence the views do not show, is reported."""
    lines = _lines(gen)
    rows = [json.loads(line) for line in lines]
    act = next(r for r in rows if r["kind"] == "explore" and r["meta"].get("step") == 1)
    answer = next(r for r in rows if r["id"] == act["id"].rsplit(":", 1)[0] + ":answer")
    act["messages"][-1]["text"] = json.dumps(
        {"action": "rotate_left" if "sweep" in act["messages"][-1]["text"] else "sweep_around"}
    )
    # evidence no view can show (an instance the house does not have); swapping reveal and
    # avoid instead passed whenever the other action happened not to show the evidence
    answer["meta"]["reveal"] = [*answer["meta"]["reveal"], 999_999]
    src = _copy(gen, tmp_path, [json.dumps(r) for r in rows])
    (src / "explore").symlink_to(gen.out / "explore")
    report = check_explore(src)
    assert report.revealed == report.identical == report.query_points - 1
    assert len(report.failed) == 2 and all(act["meta"]["item"] in f for f in report.failed)
    # the command says the same and exits 1; on the folder as generated, 0
    from typer.testing import CliRunner

    from streamspatial.cli import app

    bad = CliRunner().invoke(app, ["check-explore", str(src)])
    assert bad.exit_code == 1 and bad.stdout.startswith(report.line())
    assert bad.stdout.count("  failed: ") == 2
    good = CliRunner().invoke(app, ["check-explore", str(gen.out)])
    assert good.exit_code == 0 and good.stdout == check_explore(gen.out).line() + "\n"


def test_a_run_fed_the_labels_asks_what_training_shows_and_acts_as_trained(gen, exports, tmp_path):
    """`streamspatial run --explore-steps 3` against a model that replies what the examples
    teach: each request is an explore example's prompt, word for word and picture for picture;
    the actions the run executes are the labels; the answer after the views scores."""
    groups = _explored(gen)
    group = next(iter(groups.values()))
    item = next(it for it in gen.items if it.id == group[-1].meta["item"])
    line = next(ln for ln in (gen.out / "s3.jsonl").read_text().splitlines()
                if json.loads(ln)["id"] == item.id)  # fmt: skip
    (tmp_path / "one.jsonl").write_text(line + "\n")

    def model(req) -> str:  # act j after j − 1 executed steps, then the answer
        done = req.text.count("Exploration step ")
        return group[done].target

    with FakeOpenAIServer(model, keep_images=True, decode_frames=False) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "streamspatial", "run", "--data", str(tmp_path / "one.jsonl"),
             "--videos", str(videos_dir(gen.out)), "--model", "openai:m", "--base-url",
             srv.base_url, "--policy", "uniform-6", "--out", str(tmp_path / "run"),
             "--no-progress", "--explore-steps", str(OFFERED_STEPS)],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    rows = {row["id"]: row for row in _rows(exports["llamafactory"][0], "llamafactory")}
    assert len(srv.requests) == len(group)
    for req, rec in zip(srv.requests, group, strict=True):
        row = rows[rec.id]
        system, user = (m["content"] for m in row["messages"][:-1])
        assert req.system == system and req.text == user.replace(f" {IMAGE}", "")
        assert req.n_images == len(row["images"])
    (pred,) = read_records(tmp_path / "run" / PREDICTIONS)
    labels = group[-1].meta["actions"]
    assert [{k: a[k] for k in r} for a, r in zip(pred.actions, labels, strict=True)] == labels
    assert pred.score == 1.0 and all(t <= item.queries[0].time for t in pred.frame_times)


# -- export -----------------------------------------------------------------------------------


def _rows(folder: Path, fmt: str) -> list[dict]:
    return json.loads((folder / "streamspatial_train.json").read_text())


def _turns(row: dict, fmt: str) -> list[tuple[str, str]]:
    if fmt == "llamafactory":
        return [(m["role"], m["content"]) for m in row["messages"]]
    role = {"human": "user", "gpt": "assistant"}
    return [(role[t["from"]], t["value"]) for t in row["conversations"]]


def test_export_writes_both_formats_with_every_kind(gen, exports) -> None:
    n = Counter(r.kind for r in gen.records)
    for fmt, (folder, printed) in exports.items():
        made = f"({n['qa']} qa, {n['explore']} explore, 2 fold)"
        assert f"{len(gen.records)} examples {made}" in printed
        rows = _rows(folder, fmt)
        assert Counter(row["kind"] for row in rows) == n
        assert [row["id"] for row in rows] == [r.id for r in gen.records]
    info = json.loads((exports["llamafactory"][0] / "dataset_info.json").read_text())
    assert info == {"streamspatial_train": {
        "file_name": "streamspatial_train.json", "formatting": "sharegpt",
        "columns": {"messages": "messages", "images": "images"},
        "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user",
                 "assistant_tag": "assistant", "system_tag": "system"}}}  # fmt: skip
    folder = exports["qwen-vl"][0]
    theirs = {"annotation_path": "PATH_TO_CAMBRIAN_737K_ANNOTATION", "data_path": ""}
    scope: dict = {"data_dict": {"cambrian_737k": theirs}}  # the framework's own table
    exec((folder / "qwenvl_dataset.py").read_text(), scope)
    entry = scope["data_dict"]["streamspatial_train"]
    assert entry == {"annotation_path": str(folder.resolve() / "streamspatial_train.json"),
                     "data_path": str(folder.resolve())}  # fmt: skip
    assert scope["data_dict"]["cambrian_737k"] is theirs and len(scope["data_dict"]) == 2
    for fmt in exports:  # never `video`: Qwen's loader reads it as a video to show
        rows = _rows(exports[fmt][0], fmt)
        assert all("video" not in row and row["source_video"] for row in rows)


@pytest.mark.parametrize("fmt", ["llamafactory", "qwen-vl"])
def test_no_example_shows_a_frame_after_its_t_q(gen, exports, fmt) -> None:
    """Video frames stop at t_q; the one exception is an explore answer example's views, after
    t_q by design, marked three ways: ``view_times``, their captions, their folder."""
    folder, _ = exports[fmt]
    by_id = {r.id: r for r in gen.records}
    views = 0
    for row in _rows(folder, fmt):
        images = row["images"] if fmt == "llamafactory" else row["image"]
        text = "".join(t for _, t in _turns(row, fmt))
        assert text.count(IMAGE) == len(images)  # what the loaders check
        assert all((folder / p).is_file() for p in images)
        assert row["frame_times"] and max(row["frame_times"]) <= row["t_q"] + 1e-9
        rec = by_id[row["id"]]
        shown = [float(t) for t in re.findall(r"Frame at ([0-9.]+) s: <image>", text)]
        assert shown == pytest.approx(row["frame_times"])
        captions = [float(t) for t in re.findall(r"Exploration view at ([0-9.]+) s: <image>", text)]
        assert captions == pytest.approx(row["view_times"], abs=0.051)  # captions print 0.1 s
        if row["view_times"]:
            assert rec.kind == "explore" and rec.meta.get("step") in (None, 2, 3)
            assert min(row["view_times"]) >= row["t_q"]
            assert all(p.startswith("images/explore/") for p in images[len(shown) :])
            views += len(row["view_times"])
        options = len(re.findall(r"Option [A-Z]: <image>", text))
        assert len(images) == len(shown) + options + len(row["view_times"])
        if rec.frames is not None:  # a fold's dense window, as named
            assert row["frame_times"] == list(rec.frames)
        else:  # the policy: uniform-6 over [0, ⌊t_q·fps⌋]
            assert len(row["frame_times"]) <= 6 and row["frame_times"][0] == 0.0
        frames = images[: len(row["frame_times"])]
        assert [int(Path(p).stem) / 5 for p in frames] == pytest.approx(row["frame_times"])
        assert _turns(row, fmt)[-1] == ("assistant", rec.target)
    assert views  # the split's explore answers show their views


def test_each_image_is_written_once_and_is_the_frame_it_names(gen, exports) -> None:
    folder, _ = exports["llamafactory"]
    rows = _rows(folder, "llamafactory")
    used = Counter(p for row in rows for p in row["images"])
    on_disk = {p.relative_to(folder).as_posix() for p in (folder / "images").rglob("*.*")}
    assert set(used) == on_disk  # nothing orphaned, nothing missing
    assert max(used.values()) > 1  # frames shared by path between examples
    video = next(r.video for r in gen.records if r.kind == "fold")
    frames = f"images/{Path(video).with_suffix('').as_posix()}/"
    some = sorted(p for p in used if p.startswith(frames))[::7]
    indices = sorted(int(Path(p).stem) for p in some)
    source = open_source(videos_dir(gen.out) / video)
    decoded = {f.index: f.image for f in source.read(indices)}
    for p in some:
        want = encode_jpeg(decoded[int(Path(p).stem)], ResizeSpec(short_side=48))
        assert (folder / p).read_bytes() == want
    views = [v for r in gen.records for m in r.messages for v in m.images if v.source == "explore"]
    assert views
    for v in views:  # an exploration view: its PNG, as a run sends a view (JPEG, frame size)
        want = encode_jpeg(decode_jpeg((gen.out / v.path).read_bytes()), ResizeSpec(short_side=48))
        assert (folder / "images" / Path(v.path).with_suffix(".jpg")).read_bytes() == want


def test_both_formats_hold_the_same_examples(exports) -> None:
    lf = _rows(exports["llamafactory"][0], "llamafactory")
    qw = _rows(exports["qwen-vl"][0], "qwen-vl")
    for a, b in zip(lf, qw, strict=True):
        assert a["images"] == b["image"] and a["t_q"] == b["t_q"]
        turns = _turns(a, "llamafactory")
        if turns[0][0] == "system":  # the Qwen-VL loader has no system turn: it opens the first
            system = turns.pop(0)[1]
            turns[0] = (turns[0][0], f"{system}\n{turns[0][1]}")
        assert turns == _turns(b, "qwen-vl")


# -- bad input ---------------------------------------------------------------------------------


def _copy(gen, tmp_path: Path, lines: list[str]) -> Path:
    """The generated folder's manifest and videos, with these records."""
    src = tmp_path / "data"
    src.mkdir()
    (src / "videos").symlink_to(videos_dir(gen.out))
    shutil.copy(gen.out / "manifest.json", src / "manifest.json")
    (src / "train.jsonl").write_text("".join(line + "\n" for line in lines))
    return src


def _generation(gen) -> str:
    return json.loads((gen.out / "manifest.json").read_text())["generation"]


def test_every_record_names_its_generation(gen) -> None:
    assert {r.generation for r in gen.records} == {_generation(gen)}


def test_records_of_another_generation_are_refused(gen, tmp_path, capsys) -> None:
    """Records a run with other options (here: another seed) left beside this folder's
    manifest are never exported: one line, exit 2, nothing written."""
    lines = _lines(gen)
    stale = json.loads(lines[2])
    lines[2] = json.dumps({**stale, "generation": "0123456789abcdef"})
    src = _copy(gen, tmp_path, lines)
    code, _ = cli("export-sft", src, "--format", "qwen-vl")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"train.jsonl:3: item {stale['id']}: field 'generation'" in err[0]
    assert f"generation {_generation(gen)} of {src / 'manifest.json'}" in err[0]
    assert "0123456789abcdef" in err[0] and not (src / "sft").exists()
    # without the folder's manifest the records cannot be matched either
    (src / "manifest.json").unlink()
    (src / "train.jsonl").write_text("\n".join(_lines(gen)) + "\n")
    code, _ = cli("export-sft", src, "--format", "qwen-vl")
    assert code == 2 and "has no manifest.json" in capsys.readouterr().err


def _lines(gen) -> list[str]:
    return (gen.out / "train.jsonl").read_text().splitlines()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda r: {**r, "frames": [r["t_q"] + 1.0]}, "field 'frames'"),
        (lambda r: {**r, "t_q": -1}, "field 't_q'"),
        (lambda r: {**r, "video": "streamspatial-sim/nowhere.mp4"}, "field 'video'"),
        (lambda r: {k: v for k, v in r.items() if k != "messages"}, "field 'messages'"),
        (
            lambda r: {
                **r,
                "messages": [
                    {"role": "user", "text": "<image> hi", "prefix": True},
                    {"role": "assistant", "text": "A"},
                ],
            },
            "field 'messages",
        ),
        (lambda r: {**r, "messages": [{"role": "assistant", "text": "A"}]}, "in turn"),
    ],
)
def test_a_bad_record_is_one_line_exit_2_and_nothing_is_written(
    gen, tmp_path, capsys, change, words
) -> None:
    lines = _lines(gen)
    rec = json.loads(lines[3])
    lines[3] = json.dumps(change(rec))
    src = _copy(gen, tmp_path, lines)
    out = tmp_path / "out"
    code, _ = cli("export-sft", src, "--format", "llamafactory", "--out", out)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0]
    assert f"train.jsonl:4: item {rec['id']}" in err[0]
    assert not out.exists() and not list(tmp_path.glob(".out*"))  # no half-written export


def test_bad_records_name_file_line_record_and_field(gen, tmp_path, capsys) -> None:
    lines = _lines(gen)
    rec = json.loads(lines[3])
    lines[3] = json.dumps({**rec, "frames": [rec["t_q"] + 1.0]})
    lines[5] = "{not json"
    src = _copy(gen, tmp_path, lines)
    code, _ = cli("export-sft", src, "--format", "qwen-vl")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert f"train.jsonl:4: item {rec['id']}: field 'frames'" in err[0]
    assert "(and 1 more problem(s))" in err[0]
    with pytest.raises(InputError) as exc:
        read_examples(src / "train.jsonl")
    assert "train.jsonl:6" in str(exc.value.problems[1]) and "JSON" in str(exc.value.problems[1])


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--format", "axolotl"], "--format: expected one of llamafactory, qwen-vl"),
        (["--format", "qwen-vl", "--policy", "every-frame"], "uniform-N"),
        (["--format", "qwen-vl", "--policy", "oracle-evidence-8"], "evidence"),
        (["--format", "qwen-vl", "--kinds", "qa,chat"], "--kinds"),
    ],
)
def test_bad_options_are_one_line(gen, tmp_path, capsys, args, words) -> None:
    code, _ = cli("export-sft", gen.out, "--out", tmp_path / "x", *args)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and words in err[0]
    assert not (tmp_path / "x").exists()


def test_an_existing_export_is_kept_unless_forced(gen, tmp_path, capsys) -> None:
    out = tmp_path / "sft"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    code, _ = cli("export-sft", gen.out, "--format", "llamafactory", "--out", out,
                  "--kinds", "fold")  # fmt: skip
    assert code == 2 and "--force" in capsys.readouterr().err
    assert (out / "mine.txt").read_text() == "keep me"
    code, printed = cli("export-sft", gen.out, "--format", "llamafactory", "--out", out,
                        "--kinds", "fold", "--force")  # fmt: skip
    assert code == 0 and "2 examples (0 qa, 0 explore, 2 fold)" in printed
    assert not (out / "mine.txt").exists() and (out / "dataset_info.json").is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["sft"]  # no temp or old folder left


def test_a_folder_without_training_records_says_how_to_make_them(tmp_path, capsys) -> None:
    code, _ = cli("export-sft", tmp_path, "--format", "llamafactory")
    err = capsys.readouterr().err
    assert code == 2 and "sim generate --split train" in err


# -- a hand-built explore pair: the record and the export take any views ----------------------


def _explore_pair(gen, folder: Path) -> list[TrainingExample]:
    """An explorable question at t_q: prefix + question → the action; prefix + the action's
    views → the answer (the two examples S3-Train makes per explorable item)."""
    from PIL import Image

    video = next(r.video for r in gen.records if r.kind == "fold")
    t_q = 12.3
    views = []
    for i, t in enumerate((13.3, 14.3)):
        rel = f"explore/ex1/view{i}.png"
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (40, 30), (40 * i, 90, 200)).save(folder / rel)
        views.append(ExtraImage(source="explore", caption=f"View at {t:g} s after rotate_left:",
                                path=rel, time=t))  # fmt: skip
    question = "How many chairs are in the room you are in now?"
    action = '{"action": "rotate_left"}'
    first = TrainingExample(
        id="explore:ex1:act", kind="explore", video=video, t_q=t_q,
        messages=(Message(role="user", text=question, prefix=True),
                  Message(role="assistant", text=action)),
        meta={"actions": [{"action": "rotate_left"}]},
    )  # fmt: skip
    second = TrainingExample(
        id="explore:ex1:answer", kind="explore", video=video, t_q=t_q,
        messages=(Message(role="user", text=question, prefix=True, images=tuple(views)),
                  Message(role="assistant", text="2")),
    )  # fmt: skip
    # made for this folder: they name its generation, as generated records do
    return [ex.model_copy(update={"generation": _generation(gen)}) for ex in (first, second)]


@pytest.mark.parametrize("fmt", ["llamafactory", "qwen-vl"])
def test_a_hand_built_explore_pair_exports_with_its_views(gen, tmp_path, fmt) -> None:
    src = _copy(gen, tmp_path, [])
    write_examples(_explore_pair(gen, src), src / "train.jsonl")
    code, printed = cli("export-sft", src, "--format", fmt, "--policy", "uniform-4")
    assert code == 0 and "2 examples (0 qa, 2 explore, 0 fold), 6 images" in printed
    folder = src / "sft" / fmt
    act, answer = _rows(folder, fmt)
    assert act["kind"] == answer["kind"] == "explore"
    assert act["view_times"] == [] and answer["view_times"] == [13.3, 14.3]
    for row in (act, answer):
        assert max(row["frame_times"]) <= row["t_q"] == 12.3
        images = row["images"] if fmt == "llamafactory" else row["image"]
        assert "".join(t for _, t in _turns(row, fmt)).count(IMAGE) == len(images)
    answer_images = answer["images"] if fmt == "llamafactory" else answer["image"]
    assert answer_images[-2:] == ["images/explore/ex1/view0.jpg",
                                  "images/explore/ex1/view1.jpg"]  # fmt: skip
    # a view is written as runs send one: JPEG, at the frames' size (here already smaller)
    want = encode_jpeg(decode_jpeg((src / "explore/ex1/view1.png").read_bytes()), ResizeSpec())
    assert (folder / answer_images[-1]).read_bytes() == want
    user = _turns(answer, fmt)[0][1]
    # the prefix frames, then the views after t_q (marked by their captions), then the question
    assert re.fullmatch(
        r"(Frame at [0-9.]+ s: <image>\n){4}View at 13.3 s after rotate_left: <image>\n"
        r"View at 14.3 s after rotate_left: <image>\nHow many chairs .*",
        user,
    )
    assert _turns(act, fmt)[-1] == ("assistant", '{"action": "rotate_left"}')


def test_exploration_views_are_checked_where_they_belong(gen) -> None:
    view = ExtraImage(source="explore", caption="View:", path="explore/v.png", time=5.0)
    with pytest.raises(ValueError, match="precedes t_q"):
        TrainingExample(id="x", kind="explore", video="v.mp4", t_q=6.0, messages=(
            Message(role="user", text="Q", prefix=True, images=(view,)),
            Message(role="assistant", text="A")))  # fmt: skip
    with pytest.raises(ValueError, match="belong to explore examples"):
        TrainingExample(id="x", kind="qa", video="v.mp4", t_q=4.0, messages=(
            Message(role="user", text="Q", prefix=True, images=(view,)),
            Message(role="assistant", text="A")))  # fmt: skip
    with pytest.raises(ValueError, match="exploration-stream time"):
        ExtraImage(source="explore", caption="View:", path="explore/v.png")
    for path in ("v.png", "images/v.png", "explore/../v.png", "/explore/v.png"):
        with pytest.raises(ValueError, match="under explore/"):
            ExtraImage(source="explore", caption="View:", path=path, time=5.0)


def test_the_library_writes_the_records_too(tmp_path) -> None:
    import streamspatial as ss

    result = ss.generate(tmp_path / "lib", houses=1, minutes=0.2, seed=3, size=(96, 72), fps=5.0,
                         rooms=3, per_family=1, prune=False, split="train")  # fmt: skip
    records = read_examples(result.files["train"])
    explorable = any(it.explorable for it in read_items(tmp_path / "lib"))
    assert {r.kind for r in records} == {"qa", "fold"} | ({"explore"} if explorable else set())
    eval_split = ss.generate(tmp_path / "eval", houses=1, minutes=0.2, seed=3, size=(96, 72),
                             fps=5.0, rooms=3, per_family=1, prune=False, events=False)  # fmt: skip
    assert "train" not in eval_split.files and not (tmp_path / "eval" / "train.jsonl").exists()
