"""Option checks: length imbalance, question/option overlap, duplicates, counting options."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from qc_fixtures import row, write_rows
from streamspatial.bench.registry import load_benchmark
from streamspatial.cli import app
from streamspatial.qc.options import check_options, longest_is_correct_rate

ROWS = [
    row(
        "long",
        "Where did you leave the bag?",
        ["hall", "on the kitchen counter next to the fridge", "desk", "porch"],
        "B",
    ),
    row(
        "overlap",
        "Which way is the bathroom from here?",
        [
            "left of the bathroom door",
            "down the long corridor",
            "behind you by the stairs",
            "up the stairs on the right",
        ],
        "A",
    ),
    row(
        "trap",
        "Which way is the bathroom from here?",
        [
            "left of the bathroom door",
            "down the long corridor",
            "behind you by the stairs",
            "up the stairs on the right",
        ],
        "C",
    ),
    row("dup", "What is on the table?", ["A cup.", "a  CUP", "plate", "fork"], "C"),
    row(
        "median",
        "How many chairs have you seen?",
        ["1", "2", "3", "4", "5"],
        "C",
        code="2.2.3",
        task="Transient Count Memory",
    ),
    row(
        "fine",
        "How many chairs have you seen?",
        ["1", "2", "three", "4", "5"],
        "B",
        code="2.2.3",
        task="Transient Count Memory",
    ),
    row("ok", "Where is the exit?", ["north side", "south side", "east wing", "west wing"], "A"),
]


def _findings(tmp_path):
    data = write_rows(tmp_path / "b.jsonl", ROWS)
    _, items = load_benchmark(data)
    return data, items, [(f.item_id, f.check, f.letter, f.correct) for f in check_options(items)]


def test_each_check_finds_exactly_its_item(tmp_path):
    _, _, found = _findings(tmp_path)
    assert found == [
        ("long", "length", "B", True),
        ("overlap", "overlap", "A", True),
        ("trap", "overlap", "A", False),
        ("dup", "duplicate", "B", False),
        ("median", "count", "C", True),
    ]


def test_length_ratio_is_a_threshold(tmp_path):
    data = write_rows(tmp_path / "b.jsonl", ROWS[:1])
    _, items = load_benchmark(data)
    ratio = len("on the kitchen counter next to the fridge") / (13 / 3)  # others: 4, 4, 5
    assert [f.check for f in check_options(items, length_ratio=ratio)] == ["length"]
    assert check_options(items, length_ratio=ratio + 0.01) == []


def test_longest_is_correct_rate(tmp_path):
    _, items, _ = _findings(tmp_path)
    rate, chance = longest_is_correct_rate(items)
    # Only "long" has its answer as the unique longest option (ties count for none).
    assert rate == 1 / 7
    assert chance == (5 * 0.25 + 2 * 0.2) / 7


def test_cli_options(tmp_path):
    data, _, _ = _findings(tmp_path)
    out = tmp_path / "opts.json"
    res = CliRunner().invoke(app, ["qc", "options", "--data", str(data), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "5 finding(s) over 7 items: length 1, overlap 2, duplicate 1, count 1" in res.output
    saved = json.loads(out.read_text())
    assert [f["item_id"] for f in saved["findings"]] == ["long", "overlap", "trap", "dup", "median"]
