"""The blind probe flags an item whose answer is written in its question."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from typer.testing import CliRunner

from qc_fixtures import row, write_rows
from streamspatial.bench.registry import load_benchmark
from streamspatial.cli import app
from streamspatial.models.baselines import RandomBackend
from streamspatial.qc.blind import blind_probe
from streamspatial.testing.openai_server import FakeOpenAIServer

_OPTION = re.compile(r"^([A-G])\. (.+)$", re.MULTILINE)


def reads_the_question(req) -> str:
    """A blind reader: the option whose text appears in the question, else the last option."""
    question = req.text.split("Question:", 1)[1].split("Options:", 1)[0].lower()
    options = _OPTION.findall(req.text)
    for letter, text in options:
        if text.lower() in question:
            return letter
    return options[-1][0]


ROWS = [
    # The answer is written in the question: a blind reader gets it.
    row(
        "leak",
        "The keys were left by the kitchen sink. Where are the keys now?",
        ["on the sofa", "by the kitchen sink", "in the car", "under the bed"],
        "B",
    ),
    # Nothing in the question points at an option; the reader's fallback (D) is wrong.
    row(
        "clean",
        "Where is the umbrella now?",
        ["behind you", "to your left", "ahead", "to your right"],
        "A",
    ),
    # Two query points; the fallback is right at the first only: not every point → no flag.
    row(
        "multi",
        "How many times have you passed the lamp?",
        ["1", "2", "3", "4"],
        ["D", "C"],
        code="2.1.2",
        task="Revisit Counting",
        times=(5.0, 9.0),
    ),
]


@pytest.fixture
def data(tmp_path):
    return write_rows(tmp_path / "bench.jsonl", ROWS)


def test_probe_flags_the_leaking_item_and_reports_per_task(data):
    adapter, items = load_benchmark(data)
    with FakeOpenAIServer(reads_the_question) as server:
        from streamspatial.models.openai_compat import OpenAIChatBackend

        backend = OpenAIChatBackend("blind", base_url=server.base_url, max_retries=0)

        async def go():
            try:
                return await blind_probe(adapter, items, backend, concurrency=2)
            finally:
                await backend.aclose()

        report = asyncio.run(go())
        requests = list(server.requests)
    assert len(requests) == 4
    assert all(r.n_images == 0 for r in requests)  # question and options only
    assert not any("1.0" in r.text and "evidence" in r.text.lower() for r in requests)
    assert report.leakage_candidates() == ["leak"]
    rows = {r["task"]: r for r in report.per_task()}
    loc = rows["Out-of-View Localization"]
    assert (loc["n"], loc["right"], loc["blind_accuracy"], loc["chance"]) == (2, 1, 0.5, 0.25)
    assert loc["above_chance"] == pytest.approx(0.25)
    count = rows["Revisit Counting"]
    assert (count["n"], count["right"], count["blind_accuracy"]) == (2, 1, 0.5)


def test_random_backend_is_scored_like_a_model(data):
    adapter, items = load_benchmark(data)
    report = asyncio.run(blind_probe(adapter, items, RandomBackend(seed=1)))
    backend = RandomBackend(seed=1)
    for a in report.answers:
        item = next(it for it in items if it.id == a.item_id)
        expected = backend.choose(item.id, item.queries[a.query_index].time, item.letters)
        assert a.extracted == expected
        assert a.score == (1.0 if expected == a.answer else 0.0)


def test_cli_blind_writes_findings(data, tmp_path):
    out = tmp_path / "blind.json"
    with FakeOpenAIServer(reads_the_question) as server:
        res = CliRunner().invoke(
            app,
            [
                "qc",
                "blind",
                "--data",
                str(data),
                "--model",
                "openai:blind",
                "--base-url",
                server.base_url,
                "--out",
                str(out),
            ],
        )
    assert res.exit_code == 0, res.output
    assert "1 leakage candidate(s) of 3 items" in res.output and ": leak" in res.output
    saved = json.loads(out.read_text())
    assert saved["leakage_candidates"] == ["leak"]
    assert {a["item_id"] for a in saved["answers"] if a["score"] == 1.0} == {"leak", "multi"}


def test_cli_bad_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**ROWS[0], "answers": ["Z"]}) + "\n")
    from streamspatial.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["qc", "blind", "--data", str(bad), "--model", "random"])
    assert exc.value.code == 2


def test_multi_turn_dependants_get_the_probes_own_answer():
    """S3-Bench chains: the dependant's prompt names what the probe itself chose."""
    from pathlib import Path

    data = Path(__file__).parents[1] / "fixtures" / "bench" / "s3_good.jsonl"
    adapter, items = load_benchmark(data)
    chained = [it for it in items if it.depends_on]
    assert chained  # the fixture has a chain (h1-003 depends on h1-002)
    with FakeOpenAIServer("C") as server:  # always "C": for h1-002 that is "bed"
        from streamspatial.models.openai_compat import OpenAIChatBackend

        backend = OpenAIChatBackend("blind", base_url=server.base_url, max_retries=0)

        async def go():
            try:
                return await blind_probe(adapter, items, backend)
            finally:
                await backend.aclose()

        report = asyncio.run(go())
        texts = [r.text for r in server.requests]
    assert len(report.answers) == sum(len(it.queries) for it in items)
    asked = next(t for t in texts if "located to the Front-Left" in t)
    assert "Is the bed located" in asked  # the probe's answer, not the truth (lamp)
    assert [a.item_id for a in report.answers] == [it.id for it in items for _ in it.queries]
    assert all(a.error is None for a in report.answers)
