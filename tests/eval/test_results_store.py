"""The durable results store: append + fsync, repair of a cut tail, config-hash guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamspatial.core.errors import InputError, StreamspatialError
from streamspatial.eval.results import (
    PREDICTIONS,
    RUN_JSON,
    PredictionWriter,
    Record,
    RunFolder,
    read_records,
)


def rec(item: str, q: int = 0, score: float | None = 1.0, error: str | None = None) -> Record:
    return Record(
        item_id=item,
        query_index=q,
        t_q=1.5,
        benchmark="ovos",
        task={"level": "1", "category": "1.1", "subcategory": "1.1.1", "task": "t"},
        answer_type="choice",
        frame_times=[0.0, 1.0],
        policy="uniform-8",
        model="random",
        raw_output="A",
        extracted="A",
        answer="A",
        score=score,
        valid=True,
        latency_s=0.01,
        error=error,
    )


def test_append_then_reopen_skips_finished(tmp_path: Path) -> None:
    path = tmp_path / PREDICTIONS
    with PredictionWriter(path) as w:
        w.append(rec("a"))
        w.append(rec("b", 1))
    with PredictionWriter(path) as w:
        assert set(w.records) == {("a", 0), ("b", 1)}
        assert w.done(("a", 0)) and not w.done(("a", 1))
        with pytest.raises(RuntimeError):
            w.append(rec("a"))
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["item_id"] == "a"


def test_partial_last_line_is_dropped_on_resume(tmp_path: Path) -> None:
    path = tmp_path / PREDICTIONS
    with PredictionWriter(path) as w:
        w.append(rec("a"))
        w.append(rec("b"))
    full = path.read_bytes()
    second_start = full.index(b"\n") + 1
    path.write_bytes(full[: second_start + 17])  # killed in the middle of writing "b"
    assert [r.item_id for r in read_records(path)] == ["a"]
    with PredictionWriter(path) as w:
        assert w.repaired_bytes == 17
        assert set(w.records) == {("a", 0)}
        w.append(rec("b"))
    assert path.read_bytes() == full


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), cut=st.integers(0, 10_000))
def test_any_cut_keeps_exactly_the_complete_records(tmp_path_factory, n: int, cut: int) -> None:
    path = tmp_path_factory.mktemp("cut") / PREDICTIONS
    with PredictionWriter(path) as w:
        for i in range(n):
            w.append(rec(f"i{i}"))
    full = path.read_bytes()
    cut = cut % (len(full) + 1)
    path.write_bytes(full[:cut])
    complete = full[:cut].count(b"\n")
    with PredictionWriter(path) as w:
        assert [k[0] for k in w.records] == [f"i{i}" for i in range(complete)]
        for i in range(complete, n):
            w.append(rec(f"i{i}"))
    assert path.read_bytes() == full


def test_garbage_inside_the_file_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / PREDICTIONS
    path.write_text(rec("a").to_json() + "\nnot json\n" + rec("b").to_json() + "\n")
    with pytest.raises(InputError, match=r"predictions.jsonl:2"):
        read_records(path)


def test_run_folder_refuses_a_different_config(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "run")
    meta = folder.open({"model": "random"}, "h1")
    assert meta["status"] == "running"
    folder.finish(meta, "complete", {"records": 0})
    again = folder.open({"model": "random"}, "h1")  # same config: resume
    assert again["started_at"] == meta["started_at"] and len(again["resumed_at"]) == 1
    with pytest.raises(StreamspatialError, match=r"different configuration.*--force"):
        folder.open({"model": "frequent"}, "h2")
    (folder.path / PREDICTIONS).write_text(rec("a").to_json() + "\n")
    folder.open({"model": "frequent"}, "h2", force=True)
    assert not (folder.path / PREDICTIONS).exists()
    assert (folder.path / f"{PREDICTIONS}.h1.bak").exists()
    assert json.loads((folder.path / RUN_JSON).read_text())["config_hash"] == "h2"
