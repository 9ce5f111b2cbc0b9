"""A model that cannot answer some items by design (random: numbers) leaves them out, saying so.

Before, a random run on a numeric benchmark recorded every numeric query point as a failed call:
an error count that measured nothing and zeros in Overall.  Seed 004 prints "-" for random's
numeric columns; the run now plans only choice items and run.json / report / compare say how
many were not applicable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamspatial.bench.registry import load_benchmark
from streamspatial.cli import main
from streamspatial.eval.config import build_config
from streamspatial.eval.planner import applicable_items, keep_whole_chains
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records
from streamspatial.models.registry import supported_answer_types

FIXTURES = Path(__file__).parents[1] / "fixtures" / "bench"

# A choice item whose prompt needs the answer of a numeric one (h1-001): it cannot run
# without it, so it is left out with it.
DEPENDANT = {
    "id": "h1-005",
    "video": "house1/traj0.mp4",
    "task": "sequence_identification",
    "format": "mc",
    "question": "Having counted {prev_answer} chairs, which object appeared first?",
    "options": ["sofa", "lamp", "bed", "table"],
    "query_time": 9.5,
    "answer": "A",
    "depends_on": "h1-001",
}


@pytest.fixture()
def s3_file(tmp_path: Path) -> Path:
    path = tmp_path / "s3.jsonl"
    text = (FIXTURES / "s3_good.jsonl").read_text(encoding="utf-8").rstrip("\n")
    path.write_text(text + "\n" + json.dumps(DEPENDANT) + "\n", encoding="utf-8")
    return path


def run_cli(capsys, *args: object) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        main([str(a) for a in args])
        rc = 0
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_applicable_items_drops_numbers_and_their_dependants(s3_file: Path) -> None:
    _, items = load_benchmark(s3_file)
    kept, note = applicable_items(items, supported_answer_types("random"), model="random")
    assert [it.id for it in kept] == ["h1-002", "h1-003"]
    assert note is not None
    assert note.as_dict() == {
        "reason": "random: choice items only",
        "items": 3,
        "query_points": 3,
        "tasks": ["count", "sequence_identification", "spatial_distance"],
    }
    assert note.sentence() == "random: choice items only; 3 item(s) (3 query points) not applicable"
    # Models answering every type plan everything, with no note.
    for spec in ("frequent", "openai:m", "hf:/x"):
        assert supported_answer_types(spec) is None
        assert applicable_items(items, None, model=spec) == (list(items), None)


def test_keep_whole_chains_follows_chains_of_any_length(s3_file: Path) -> None:
    _, items = load_benchmark(s3_file)
    assert [it.id for it in keep_whole_chains(items, ["h1-002"])] == ["h1-001", "h1-004", "h1-005"]
    assert [it.id for it in keep_whole_chains(items[2:])] == ["h1-004"]  # h1-003 needs h1-002


def test_random_run_records_no_errors_and_reports_what_it_left_out(
    capsys, s3_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    args = ["run", "--data", s3_file, "--videos", tmp_path, "--model", "random"]
    rc, _, err = run_cli(capsys, *args, "--policy", "none", "--out", out, "--no-progress")
    assert rc == 0, err
    assert "random: choice items only; 3 item(s) (3 query points) not applicable" in err
    records = read_records(out / PREDICTIONS)
    assert sorted(r.item_id for r in records) == ["h1-002", "h1-003"]
    assert all(r.error is None and r.valid for r in records)
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["status"] == "complete"
    assert meta["benchmark"]["query_points"] == 2
    assert meta["benchmark"]["not_applicable"]["query_points"] == 3

    rc, _, err = run_cli(capsys, "report", out)
    assert rc == 0, err
    line = (
        "random: choice items only; 3 item(s) (3 query points) not applicable, left out of "
        "every row (tasks: count, sequence_identification, spatial_distance)"
    )
    assert line in err
    assert f"- {line}\n" in (out / "report.md").read_text()
    scores = json.loads((out / "scores.json").read_text())
    assert scores["counts"]["not_applicable"] == 3
    assert scores["counts"]["errors"] == 0
    num = next(r for r in scores["table"]["rows"] if r["task"] == "Num")
    assert (num["n"], num["score"]) == (0, None)  # S3-Bench prints "-" for random's numbers

    rc, table, err = run_cli(capsys, "compare", out)
    assert rc == 0, err
    head, rule, row = table.splitlines()
    assert head.split("|")[5:9] == [" scorer ", " n ", " n/a ", " errors "]
    assert head.split("|")[9:12] == [" Num ", " MC ", " Overall "]
    assert rule.split("|")[9:12] == ["---:", "---:", "---:"]  # scores right-aligned, even "–"
    assert row.split("|")[5:9] == [" paper ", " 2 ", " 3 ", " 0 "]  # S3-Bench: no official code


def test_all_numeric_benchmark_runs_nothing_and_says_why(capsys, tmp_path: Path) -> None:
    out = tmp_path / "run"
    data = FIXTURES / "vcbench_eval.jsonl"
    args = ["run", "--data", data, "--videos", tmp_path, "--model", "random", "--policy", "none"]
    rc, _, err = run_cli(capsys, *args, "--out", out, "--no-progress")
    assert rc == 0, err
    assert read_records(out / PREDICTIONS) == []
    rc, _, err = run_cli(capsys, "report", out)
    assert rc == 0, err
    assert "random: choice items only; 2 item(s) (5 query points) not applicable" in err


def test_random_seed_from_the_config_reaches_the_backend(tmp_path: Path) -> None:
    from streamspatial.eval.execute import build_backend
    from streamspatial.models.types import GenerationParams

    given = {"data": tmp_path / "d.jsonl", "videos": tmp_path, "out": tmp_path / "o"}
    cfg = build_config({**given, "model": "random", "policy": "none", "seed": 7})
    assert build_backend(cfg, [], GenerationParams()).seed == 7
    cfg = build_config({**given, "model": "random", "policy": "none"})
    assert build_backend(cfg, [], GenerationParams()).seed == 0
