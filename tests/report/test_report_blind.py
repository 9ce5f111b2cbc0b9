"""The vision–blind gap table: blind scores read from `qc blind` JSON or a pruned manifest."""

from __future__ import annotations

import json

import pytest

from streamspatial.core.errors import InputError
from streamspatial.report.blind import BlindTask, find_blind, gap_table, load_blind


def _rec(bench, task, answer_type, answer, extracted, score, valid=True):
    return {
        "benchmark": bench,
        "task": {"task": task},
        "answer_type": answer_type,
        "answer": answer,
        "extracted": extracted,
        "score": score,
        "valid": valid,
    }


def test_gap_rows_compare_like_with_like():
    blind = {
        "ovos/Revisit Counting": BlindTask(chance=0.25, blind=0.30, items=40),
        "s3/count": BlindTask(chance=0.31, blind=0.29, items=30),
    }
    records = [
        _rec("ovos", "Revisit Counting", "choice", "A", "A", 1.0),
        _rec("ovos", "Revisit Counting", "choice", "B", "C", 0.0),
        _rec("ovos", "Revisit Counting", "choice", "B", None, None, valid=False),
        # numbers: MRA of the extracted value (8 vs 10: 20 % off → 0.7), whatever the stored score
        _rec("s3", "count", "number", 10.0, 8.0, 0.0),
        _rec("s3", "count", "number", 4.0, 4.0, 1.0),
        _rec("s3", "not probed", "number", 4.0, 4.0, 1.0),
    ]
    table = gap_table(records, blind)
    assert table is not None
    rc = table.row(task="ovos/Revisit Counting")
    assert rc["n"] == 3 and rc["score"] == pytest.approx(1 / 3)
    assert rc["vision_gap"] == pytest.approx(1 / 3 - 0.30)
    count = table.row(task="s3/count")
    assert count["score"] == pytest.approx((0.7 + 1.0) / 2)
    assert count["blind"] == 0.29 and count["chance"] == 0.31
    assert [r["task"] for r in table.rows] == ["ovos/Revisit Counting", "s3/count"]
    # invalid answers left out where the benchmark excludes them
    excl = gap_table(records, blind, invalid="exclude")
    assert excl is not None and excl.row(task="ovos/Revisit Counting")["n"] == 2
    assert gap_table(records, {}) is None


def test_blind_scores_from_qc_json_and_manifest(tmp_path):
    qc = tmp_path / "q" / "blind.json"
    qc.parent.mkdir()
    qc.write_text(
        json.dumps(
            {
                "tasks": [
                    {"task": "s3/count", "chance": 0.3, "blind": 0.32, "items": 25},
                    {"task": "ovos/Tiny", "chance": 0.5, "blind": None, "items": 2},
                ]
            }
        )
    )
    assert load_blind(qc) == {"s3/count": BlindTask(0.3, 0.32, 25)}
    man = tmp_path / "g" / "manifest.json"
    man.parent.mkdir()
    after = {"items": 36, "chance": 0.25, "blind": 0.22}
    man.write_text(json.dumps({"pruning": {"tasks": {"ovos/X": {"after": after}}}}))
    assert load_blind(man) == {"ovos/X": BlindTask(0.25, 0.22, 36)}
    # found beside the run's data file: blind.json first, else a pruned manifest
    (qc.parent / "s3.jsonl").write_text("")
    (man.parent / "ovos.jsonl").write_text("")
    assert find_blind(qc.parent / "s3.jsonl") == qc
    assert find_blind(man.parent / "ovos.jsonl") == man
    assert find_blind(tmp_path / "nowhere.jsonl") is None
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(InputError, match="qc blind"):
        load_blind(tmp_path / "bad.json")
