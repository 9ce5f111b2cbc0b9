"""The annotation tool end to end: marks on the timeline, refusals, export that validates."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from streamspatial.cli import app as cli_app
from streamspatial.cli.serve import build_app
from streamspatial.web.server import ServerThread
from web_fixtures import make_study

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def served(tmp_path):
    _, videos = make_study(tmp_path)
    # Annotation only (no --data): the recommended setup, every video is served.
    app, _ = build_app(
        data=None, videos=videos, out=tmp_path / "out", mode="streaming", annotations=None
    )
    with ServerThread(app) as srv:
        yield srv, videos, tmp_path / "out" / "annotations.ovos.jsonl"


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One server for the API-only tests (they write at most one item, with its own id)."""
    root = tmp_path_factory.mktemp("annotate")
    _, videos = make_study(root)
    app, _ = build_app(
        data=None, videos=videos, out=root / "out", mode="streaming", annotations=None
    )
    with ServerThread(app) as srv:
        yield srv, videos, root / "out" / "annotations.ovos.jsonl"


def _lines(file: Path) -> list[str]:
    return file.read_text().splitlines() if file.exists() else []


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("needs Debian chromium at /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


def _seek(page, t: float) -> None:
    page.evaluate(
        """(t) => new Promise((done) => {
             const v = document.getElementById('video');
             v.addEventListener('seeked', () => done(), {once: true});
             v.currentTime = t;
           })""",
        t,
    )


def test_annotation_round_trip_validates(served, browser):
    srv, videos, file = served
    page = browser.new_page()
    page.goto(srv.url + "/annotate")
    page.wait_for_function("document.getElementById('video').readyState >= 1")
    assert page.input_value("#video-select") == "a.mp4"
    # Evidence [1.0, 2.5] with the query at 2.0: the page refuses before sending anything.
    _seek(page, 1.0)
    page.click("#mark-start")
    _seek(page, 2.5)
    page.click("#mark-end")
    _seek(page, 2.0)
    page.click("#mark-query")
    page.fill("#question", "How many times did the red chair appear?")
    for i, text in enumerate(["once", "twice", "three times", "never"]):
        page.fill(f"#options li:nth-child({i + 1}) input", text)
    page.select_option("#answer", "B")
    page.fill("#task-code", "2.1.2")
    page.fill("#task-name", "Revisit Counting")
    page.click("#save")
    assert "must end strictly before the query time 2.00 s" in page.inner_text("#problems")
    assert not file.exists()
    # Moving the query after the evidence makes the point valid; keep it and ask again later
    # (Revisit Counting), with a larger answer and no evidence of its own.
    _seek(page, 3.0)
    page.click("#mark-query")
    page.click("#add-point")
    assert "query point 1: at 3.00 s, answer B" in page.inner_text("#points")
    _seek(page, 2.8)
    page.click("#mark-query")
    page.click("#add-point")  # earlier than the kept point: refused
    assert "query points must be in increasing time" in page.inner_text("#problems")
    _seek(page, 3.5)
    page.click("#mark-query")
    page.select_option("#answer", "C")
    page.click("#save")
    page.wait_for_selector("#saved:has-text('saved item 1')")
    # A second item, on the other video, with two evidence intervals.
    page.select_option("#video-select", "b.mp4")
    page.wait_for_function("document.getElementById('video').src.endsWith('/media/b.mp4')")
    page.wait_for_function("document.getElementById('video').readyState >= 1")
    for start, end in ((0.2, 0.4), (0.9, 1.1)):
        _seek(page, start)
        page.click("#mark-start")
        _seek(page, end)
        page.click("#mark-end")
    _seek(page, 1.5)
    page.click("#mark-query")
    page.fill("#question", "Where is the door now?")
    page.fill("#options li:nth-child(1) input", "left")
    page.fill("#options li:nth-child(2) input", "right")
    for _ in range(2):
        page.click("#options li:nth-child(3) button")
    page.select_option("#answer", "A")
    page.fill("#task-code", "2.2.1")
    page.fill("#task-name", "Out-of-View Localization")
    page.click("#save")
    page.wait_for_selector("#saved:has-text('saved item 2')")
    page.close()

    exported = httpx.get(srv.url + "/api/annotations.jsonl")
    assert exported.status_code == 200
    records = [json.loads(line) for line in exported.text.splitlines()]
    assert [r["id"] for r in records] == [1, 2]
    first, second = records
    assert first["query_times"] == [3.0, 3.5]
    assert first["evidence_times"] == [[1.0, 2.5], []]
    assert first["answers"] == ["B", "C"]
    assert first["level"] == 2 and first["task_main_category"] == "2.1"
    assert first["options"] == {"A": "once", "B": "twice", "C": "three times", "D": "never"}
    assert second["evidence_times"] == [[[0.2, 0.4], [0.9, 1.1]]]
    assert second["options"] == {"A": "left", "B": "right"}

    out = file.parent / "export.jsonl"
    out.write_text(exported.text)
    res = CliRunner().invoke(cli_app, ["validate", str(out), "--videos", str(videos)])
    assert res.exit_code == 0, res.output
    assert "ovos, 2 items, 3 query points; videos checked" in res.output


def _item(**over) -> dict:
    base = {
        "video": "a.mp4",
        "question": "Which way is the exit?",
        "options": ["left", "right"],
        "answer": "A",
        "task_subcategory": "2.2.1",
        "task_type_name": "Out-of-View Localization",
        "query_time": 2.0,
        "evidence": [[0.5, 1.0]],
    }
    return {**base, **over}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"evidence": [[0.5, 2.0]]}, "strictly before the query time 2 s, got [0.5, 2]"),
        ({"evidence": [[1.5, 1.0]]}, "expected start ≤ end"),
        ({"answer": "C"}, "expected a letter among the options AB, got C"),
        ({"options": ["left"]}, "expected at least two options"),
        ({"options": ["left", "left"]}, "expected every option to differ"),
        ({"question": " "}, "field 'question': expected a non-empty string"),
        ({"task_subcategory": "two"}, "expected a task code like 2.1.2"),
        ({"query_time": 9.5}, "expected a query time within the video (4 s), got 9.5 s"),
        ({"query_time": -1}, "query_times[0]"),
        ({"video": "../secret.txt"}, "expected a video under the served folder"),
        ({"video": "missing.mp4"}, "expected a video under the served folder"),
    ],
)
def test_server_refuses_invalid_items(shared, change, message):
    srv, _, file = shared
    before = _lines(file)
    r = httpx.post(srv.url + "/api/annotations", json=_item(**change))
    assert r.status_code == 422
    assert any(message in p for p in r.json()["detail"]), r.json()
    assert _lines(file) == before  # nothing written, nothing half-written


def test_several_query_points_must_increase(shared):
    srv, _, _ = shared
    points = [
        {"time": 3.0, "answer": "A", "evidence": [[0.5, 1.0]]},
        {"time": 2.5, "answer": "B", "evidence": []},
    ]
    r = httpx.post(srv.url + "/api/annotations", json=_item(queries=points))
    assert r.status_code == 422
    assert "field 'query_times': expected increasing query times" in r.json()["detail"]
    points[1]["time"] = 3.5
    points[1]["evidence"] = [[3.0, 3.6]]
    r = httpx.post(srv.url + "/api/annotations", json=_item(queries=points))
    assert r.status_code == 422
    assert any("evidence_times[1]" in p and "strictly before" in p for p in r.json()["detail"])


def test_server_accepts_a_valid_item_and_refuses_its_id_twice(shared):
    srv, _, file = shared
    before = _lines(file)
    r = httpx.post(srv.url + "/api/annotations", json=_item(id="x7"))
    assert r.status_code == 200 and r.json()["id"] == "x7"
    again = httpx.post(srv.url + "/api/annotations", json=_item(id="x7"))
    assert again.status_code == 422 and "x7 is already used" in again.json()["detail"][0]
    assert len(_lines(file)) == len(before) + 1
