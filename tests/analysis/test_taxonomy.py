"""Error taxonomy end to end: a run's wrong answers judged by the loopback server."""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path

import pytest

from report_fixtures import run_one
from runner_fixtures import write_ovos
from streamspatial.analysis.taxonomy import (
    cohen_kappa,
    evidence_times,
    majority,
    parse_label,
    shorten_trace,
)
from streamspatial.cli import main
from streamspatial.core.schema import QueryPoint
from streamspatial.testing import FakeOpenAIServer

QID = re.compile(r"query time ([0-9.]+) s\): Question (\d+):")

# (judge model, item id, query time) → the three votes, in the order they are asked.
VOTES = {
    ("j1", "0", 2.0): ["T2a", "T2a", "T2a"],
    ("j1", "2", 3.0): ["T2c", "T2c", "T2b"],
    ("j1", "2", 5.5): ["T2c", "T1b", "T2a"],  # no majority: a disagreement
    ("j1", "3", 0.0): ["T1b", "T1b", "T1b"],
    ("j1", "6", 1.25): ['{"label": "direction", "reason": "x"}', "T2b", "no idea"],
    ("j1", "7", 2.5): ["T2a", "T2a", "T2a"],
    ("j1", "8", 5.0): ["T1b", "T1b", "T1b"],
    ("j2", "0", 2.0): ["T2b", "T2b", "T2b"],
    ("j2", "2", 3.0): ["T2c", "T2c", "T2c"],
    ("j2", "2", 5.5): ["T2a", "T2a", "T2a"],
    ("j2", "3", 0.0): ["T1b", "T1b", "T1b"],
    ("j2", "6", 1.25): ["T2b", "T2b", "T2b"],
    ("j2", "7", 2.5): ["T2a", "T2a", "T2a"],
    ("j2", "8", 5.0): ["T1b", "T1b", "T1b"],
}


class ScriptedJudge:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.left = {k: list(v) for k, v in VOTES.items()}

    def __call__(self, req) -> str:
        m = QID.search(req.text)
        assert m, req.text
        key = (req.model, m.group(2), float(m.group(1)))
        with self.lock:
            return self.left[key].pop(0)


def model_reply(req) -> str:
    """Always A, with a closed trace; item 4's trace never closes (out of budget)."""
    if "Question 4:" in req.text:
        return "<think>still weighing the options"
    return "<think>The sofa is to the left.</think>A"


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("tax")
    data, videos = write_ovos(root)
    with FakeOpenAIServer(model_reply) as server:
        out = run_one(
            data, videos, root / "run", model="openai:m", policy="uniform-8",
            base_url=server.base_url,
        )  # fmt: skip
    return out, data


def test_two_judges_votes_majority_truncation_kappa_and_report(run, capsys) -> None:
    out, data = run
    judge = ScriptedJudge()
    with FakeOpenAIServer(judge, fps=10.0) as server:
        args = ["taxonomy", out, "--judge", "openai:j1", "--judge2", "openai:j2",
                "--base-url", server.base_url, "--no-progress"]  # fmt: skip
        try:
            main([str(a) for a in args])
        except SystemExit as exc:
            assert exc.code in (0, None)
        requests = list(server.requests)
    assert all(not v for v in judge.left.values())  # every scripted vote was asked for
    assert len(requests) == 7 * 3 * 2  # 7 judged queries × 3 votes × 2 judges
    assert not any("Question 4:" in r.text for r in requests)  # truncated: no call
    from streamspatial.bench.registry import load_benchmark

    _, items = load_benchmark(data, videos=None)
    queries = {(it.id, float(q.time)): q for it in items for q in it.queries}
    for r in requests:
        m = QID.search(r.text)
        q = queries[(m.group(2), float(m.group(1)))]
        expected = sorted({int(t * 10 + 1e-9) for t in evidence_times(q)})
        assert r.frame_indices == expected
        assert max(r.frame_indices) <= q.time * 10 + 1e-9  # nothing after the query time
        assert r.system and "T2c temporal-binding" in r.system
        assert "Ground truth:" in r.text and "Predicted: A" in r.text
        assert "The sofa is to the left." in r.text
    result = json.loads((out / "taxonomy.json").read_text())
    assert (result["wrong"], result["labelled"], result["truncated"], result["disagreements"]) == (
        8, 6, 1, 1,
    )  # fmt: skip
    dist = result["distribution"]
    assert dist["L1"] == {"T1a": 0, "T1b": 1, "T2a": 1, "T2b": 0, "T2c": 0}
    assert dist["L2"] == {"T1a": 0, "T1b": 0, "T2a": 1, "T2b": 0, "T2c": 1}
    assert dist["L3"] == {"T1a": 1, "T1b": 1, "T2a": 0, "T2b": 0, "T2c": 0}
    assert dist["L4"] == {"T1a": 0, "T1b": 0, "T2a": 0, "T2b": 1, "T2c": 0}
    from sklearn.metrics import cohen_kappa_score

    a = ["T2a", "T2c", "T1b", "T2b", "T2a", "T1b"]
    b = ["T2b", "T2c", "T1b", "T2b", "T2a", "T1b"]
    assert result["kappa_n"] == 6
    assert result["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)
    # The HTML report draws the per-level distribution from taxonomy.json.
    page_path = out / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(out), "--html"])
    assert done.value.code in (0, None)
    page = page_path.read_text()
    section = page[page.index('id="taxonomy"') :]
    assert section.count("<img") == 1 and "no error taxonomy" not in section
    capsys.readouterr()


def test_judge_must_be_openai_and_one_line(run, capsys) -> None:
    out, _ = run
    with pytest.raises(SystemExit) as exc:
        main(["taxonomy", str(out), "--judge", "random"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "expected openai:<model-name>" in err[0]


def test_pieces() -> None:
    assert majority(["T2a", "T2a", None]) == "T2a"
    assert majority(["T2a", "T2b", "T2c"]) is None
    assert majority([None, None, None]) is None
    assert parse_label('{"label": "temporal-binding"}') == "T2c"
    assert parse_label('{"label": "t1a"}') == "T1a"
    assert parse_label("I cannot say") is None
    long = "h" * 3000 + "m" * 2000 + "t" * 1500
    short = shorten_trace(long)
    assert short.startswith("h" * 3000) and short.endswith("t" * 1500) and "m" not in short
    assert shorten_trace("abc") == "abc"
    assert cohen_kappa(["a", "b"], ["a", "b"]) == 1.0
    assert cohen_kappa(["a", "a"], ["a", "a"]) is None
    # 4–6 frames, at or before t_q, midpoints first.
    q = QueryPoint(index=0, time=10.0, answer="A", evidence=((1.0, 3.0),))
    times = evidence_times(q)
    assert 4 <= len(times) <= 6 and 2.0 in times and max(times) <= 10.0
    many = QueryPoint(index=0, time=50.0, answer="A",
                      evidence=tuple((float(i), i + 1.0) for i in range(0, 40, 4)))  # fmt: skip
    t_many = evidence_times(many)
    assert len(t_many) == 6 and t_many[0] == 0.5 and t_many[-1] == 36.5
    none = QueryPoint(index=0, time=8.0, answer="A")
    assert evidence_times(none) == [1.0, 3.0, 5.0, 7.0]  # spread over the prefix
