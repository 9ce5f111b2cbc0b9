"""The human streaming baseline end to end in headless Chromium, and its server-side guards.

A participant watches two generated videos; the page pauses at each query time, refuses seeks
past the furthest point reached (and back into what played), and the answers land in a run
folder that ``streamspatial report`` scores like any model's.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from streamspatial.cli import app as cli_app
from streamspatial.cli.serve import build_app
from streamspatial.eval.results import read_records
from streamspatial.web.server import ServerThread
from web_fixtures import QUERIES, make_study

CHROMIUM = Path("/usr/bin/chromium")
OVERALL = 2 / 3  # two of three right; the report keeps fractions


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    data, videos = make_study(root)
    out = root / "runs"
    app, st = build_app(data=data, videos=videos, out=out, mode="streaming", annotations=None)
    with ServerThread(app) as srv:
        yield srv, out
    st.close()


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip("needs Debian chromium at /usr/bin/chromium")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--no-sandbox", "--autoplay-policy=no-user-gesture-required"],
        )
        yield b
        b.close()


def _join(browser, srv, name: str):
    """A participant joins from the study page and lands on the player, the video loaded."""
    page = browser.new_page()
    page.goto(srv.url + "/")
    page.fill("#name", name)
    page.click("#join button[type=submit]")
    page.wait_for_url(f"**/watch?p={name.lower()}")
    page.wait_for_function("document.getElementById('video').readyState >= 1")
    return page


def _current_time(page) -> float:
    return page.evaluate("document.getElementById('video').currentTime")


def _try_seek(page, t: float) -> float:
    """Ask the player to jump to ``t``; return where it is once the page has reacted."""
    page.evaluate(f"document.getElementById('video').currentTime = {t}")
    page.wait_for_timeout(300)
    return _current_time(page)


def _answer_when_asked(page, item_id: str, t_q: float, letter: str, *, key: bool = False) -> None:
    try:
        page.wait_for_selector(f"#question .q[data-item='{item_id}']", timeout=15_000)
    except Exception as exc:  # say what the page was doing, not only that it timed out
        state = page.evaluate(
            "(() => { const v = document.getElementById('video');"
            " return {error: document.getElementById('error').textContent,"
            " time: v.currentTime, paused: v.paused, ended: v.ended,"
            " readyState: v.readyState, src: v.src}; })()"
        )
        raise AssertionError(f"question {item_id} never shown; page state {state}") from exc
    assert page.evaluate("document.getElementById('video').paused")
    assert abs(_current_time(page) - t_q) < 0.06  # stopped at the query time
    assert f"Question number {item_id}" in page.inner_text("#question")
    # Past the query time the player snaps back; so does rewinding into what was seen.
    assert abs(_try_seek(page, t_q + 1.0) - t_q) < 0.06
    assert abs(_try_seek(page, 0.2) - t_q) < 0.06
    if key:
        page.keyboard.press(letter.lower())
    else:
        page.click(f"#question button[data-letter='{letter}']")


def test_participant_session_reaches_report(study, browser):
    srv, out = study
    page = _join(browser, srv, "Ada")
    # Before playing, nothing ahead can be reached (within what was served: a seek past the
    # served prefix's end is the browser's to clamp) and no question is shown.
    assert _try_seek(page, 1.5) < 0.06
    assert page.is_hidden("#question")

    page.click("#play")
    _answer_when_asked(page, "1", 2.0, "B")  # right
    _answer_when_asked(page, "2", 3.5, "A")  # wrong (C is right)
    page.wait_for_function("document.getElementById('video').src.includes('?v=b.mp4')")
    page.keyboard.press(" ")  # space plays
    _answer_when_asked(page, "3", 1.2, "A", key=True)  # right, from the keyboard
    page.wait_for_selector("#done:not([hidden])", timeout=10_000)
    page.close()

    run_dir = out / "ada-streaming"
    records = {r.item_id: r for r in read_records(run_dir / "predictions.jsonl")}
    assert sorted(records) == ["1", "2", "3"]
    assert {r.model for r in records.values()} == {"human:Ada"}
    assert [records[i].extracted for i in "123"] == ["B", "A", "A"]
    assert [records[i].score for i in "123"] == [1.0, 0.0, 1.0]
    assert all(not r.offline and r.policy == "human-streaming" for r in records.values())
    for item_id, _, t_q, _ in QUERIES:
        assert records[item_id].t_q == t_q
        assert records[item_id].extra["reached_s"] == pytest.approx(t_q, abs=0.06)

    # Finished: no video is served to this participant any more (no rewatching).
    assert _api(srv, "ada", "/video").status_code == 409

    res = CliRunner().invoke(cli_app, ["report", str(run_dir)])
    assert res.exit_code == 0, res.output
    scores = json.loads((run_dir / "scores.json").read_text())
    assert scores["model"] == "human:Ada"
    assert scores["counts"]["records"] == 3 and scores["counts"]["planned"] == 3
    assert scores["headline"]["Overall"] == pytest.approx(OVERALL)

    # The person sits in a leaderboard next to a model run of the same benchmark.
    root = out.parent
    model_run = root / "random-run"
    # Playwright's event loop owns this thread; the runner needs its own (asyncio.run).
    results = []
    args = [
        "run",
        "--data",
        str(root / "bench.jsonl"),
        "--videos",
        str(root / "videos"),
        "--model",
        "random",
        "--policy",
        "none",
        "--out",
        str(model_run),
        "--no-progress",
    ]
    worker = threading.Thread(target=lambda: results.append(CliRunner().invoke(cli_app, args)))
    worker.start()
    worker.join()
    res = results[0]
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli_app, ["compare", str(run_dir), str(model_run)])
    assert res.exit_code == 0, res.output
    # A human's clicked letter needs no reading: under either scorer it is the record's own.
    assert "| ada-streaming | human:Ada | human:human-streaming | paper | 3 | 0 | 66.67 |" in (
        res.output
    )
    assert "| random-run | random | policy:none | official | 3 | 0 |" in res.output
    res = CliRunner().invoke(
        cli_app, ["compare", str(run_dir), str(model_run), "--scorer", "official"]
    )
    assert res.exit_code == 0, res.output
    assert "| ada-streaming | human:Ada | human:human-streaming | official | 3 | 0 | 66.67 |" in (
        res.output
    )


def test_page_waits_out_a_server_clock_that_started_late(study, browser, monkeypatch):
    """A /start that reaches the server late (a loaded machine, a slow network) leaves the
    server's watching clock behind the page's; the page waits the difference out at the query
    time instead of giving up on a question the server cannot release yet."""
    from streamspatial.web.human import Participant

    srv, _ = study
    real_start = Participant.start

    def late_start(self, video):
        time.sleep(1.5)  # longer than the server's slack, shorter than the page's patience
        return real_start(self, video)

    monkeypatch.setattr(Participant, "start", late_start)
    page = _join(browser, srv, "Lag")
    page.click("#play")
    _answer_when_asked(page, "1", 2.0, "B")
    page.wait_for_function("document.getElementById('progress').textContent.startsWith('1/')")
    assert page.inner_text("#error") == ""
    page.close()


def _api(srv, slug: str, path: str, body: dict | None = None) -> httpx.Response:
    url = f"{srv.url}/api/participants/{slug}{path}"
    return httpx.get(url) if body is None else httpx.post(url, json=body)


def test_server_refuses_questions_and_answers_not_yet_reached(study):
    srv, out = study
    r = httpx.post(srv.url + "/api/participants", json={"name": "Eve"})
    assert r.status_code == 200 and r.json()["next_time"] == 2.0
    assert "Question number" not in r.text  # only the next query time, not its question
    # Claiming to be at 3.9 s straight after starting: the server allows only wall-clock time.
    assert _api(srv, "eve", "/start", {"video": "a.mp4"}).status_code == 200
    reached = _api(srv, "eve", "/progress", {"video": "a.mp4", "time": 3.9}).json()["reached"]
    assert reached < 2.0
    q = _api(srv, "eve", "/question")
    assert q.status_code == 409 and "asked at 2.00 s" in q.json()["detail"]
    a = _api(srv, "eve", "/answers", {"item_id": "1", "query_index": 0, "answer": "B"})
    assert a.status_code == 409
    # The other video is not the one being watched.
    assert _api(srv, "eve", "/progress", {"video": "b.mp4", "time": 0.1}).status_code == 409
    # Once enough time has passed, the progress is capped at the next query time.
    time.sleep(1.6)
    reached = _api(srv, "eve", "/progress", {"video": "a.mp4", "time": 3.9}).json()["reached"]
    assert reached == 2.0
    # Answering a later question first is refused; the current one is not until it is shown.
    skip = _api(srv, "eve", "/answers", {"item_id": "2", "query_index": 0, "answer": "C"})
    assert skip.status_code == 409
    early = _api(srv, "eve", "/answers", {"item_id": "1", "query_index": 0, "answer": "B"})
    assert early.status_code == 409 and "not been shown" in early.json()["detail"]
    shown = _api(srv, "eve", "/question").json()
    assert shown["item_id"] == "1" and "answer" not in shown and "evidence" not in shown
    bad = _api(srv, "eve", "/answers", {"item_id": "1", "query_index": 0, "answer": "Z"})
    assert bad.status_code == 422 and "one of the options ABC" in bad.json()["detail"]
    time.sleep(1.5)  # thinking about the question does not count as watching
    ok = _api(srv, "eve", "/answers", {"item_id": "1", "query_index": 0, "answer": "b"})
    assert ok.status_code == 200 and ok.json()["next_time"] == 3.5
    reached = _api(srv, "eve", "/progress", {"video": "a.mp4", "time": 3.5}).json()["reached"]
    assert reached < 3.0  # ≈ 2.0 + slack; had the 1.5 s counted it would be 3.5
    again = _api(srv, "eve", "/answers", {"item_id": "1", "query_index": 0, "answer": "A"})
    assert again.status_code == 409 and "already answered" in again.json()["detail"]
    records = read_records(out / "eve-streaming" / "predictions.jsonl")
    assert [(r.item_id, r.extracted, r.score) for r in records] == [("1", "B", 1.0)]


def test_bad_participant_name_is_refused(study):
    srv, _ = study
    r = httpx.post(srv.url + "/api/participants", json={"name": "../../etc"})
    assert r.status_code == 422 and "participant name" in r.json()["detail"]
    assert _api(srv, "nobody", "").status_code == 404


def test_offline_mode_shows_questions_with_the_whole_video(tmp_path, browser):
    data, videos = make_study(tmp_path)
    app, st = build_app(
        data=data, videos=videos, out=tmp_path / "runs", mode="offline", annotations=None
    )
    with ServerThread(app) as srv:
        page = browser.new_page()
        r = httpx.post(srv.url + "/api/participants", json={"name": "Bo"})
        assert [q["item_id"] for q in r.json()["questions"]] == ["1", "2"]
        page.goto(srv.url + "/watch?p=bo")
        page.wait_for_function("document.getElementById('video').readyState >= 1")
        assert page.evaluate("document.getElementById('video').controls")
        assert _try_seek(page, 3.0) == pytest.approx(3.0, abs=0.05)  # free scrubbing
        page.click("#question .q[data-item='2'] button[data-letter='C']")
        page.wait_for_function("document.querySelectorAll('#question .q').length === 1")
        page.click("#question .q[data-item='1'] button[data-letter='A']")
        page.wait_for_function("document.getElementById('video').src.includes('?v=b.mp4')")
        page.close()
    st.close()
    records = {r.item_id: r for r in read_records(tmp_path / "runs/bo-offline/predictions.jsonl")}
    assert [(records[i].score, records[i].offline) for i in "12"] == [(0.0, True), (1.0, True)]


def test_study_videos_reach_participants_only_through_their_session(study, tmp_path):
    import av

    from streamspatial.video.synthetic import read_frame_index

    srv, _ = study
    r = httpx.post(srv.url + "/api/participants", json={"name": "Kim"})
    url = r.json()["video"]["url"]
    assert url == "/api/participants/kim/video?v=a.mp4&until=2"
    part = httpx.get(srv.url + url, headers={"Range": "bytes=0-15"})
    assert part.status_code == 206 and len(part.content) == 16
    assert part.content[4:8] == b"ftyp"  # the start of an mp4
    # … of the video up to the first question (2.0 s at 10 fps), not one frame more
    whole = httpx.get(srv.url + url)
    assert whole.status_code == 200
    (tmp_path / "got.mp4").write_bytes(whole.content)
    with av.open(str(tmp_path / "got.mp4")) as got:
        shown = [read_frame_index(f.to_ndarray(format="rgb24")) for f in got.decode(video=0)]
    assert shown == list(range(21))
    # The raw media route refuses the study's videos while a streaming study runs.
    assert httpx.get(srv.url + "/media/a.mp4").status_code == 403
    assert httpx.get(srv.url + "/media/b.mp4").status_code == 403
    assert httpx.get(srv.url + "/api/annotation").json()["videos"] == []


def test_number_answers_are_parsed_like_the_runner():
    from streamspatial.core.schema import AnswerType, Item, QueryPoint, TaskLabels
    from streamspatial.web.human import StudyError, parse_answer

    item = Item(
        benchmark="vcbench",
        id="n1",
        video="a.mp4",
        question="How many?",
        answer_type=AnswerType.NUMBER,
        queries=(QueryPoint(index=0, time=1.0, answer=3.0),),
        task=TaskLabels(task="count"),
    )
    assert parse_answer(item, " 4 ") == 4.0
    assert parse_answer(item, "2.5") == 2.5
    for bad in ("three", "", "nan", "inf"):
        with pytest.raises(StudyError, match="expected a number"):
            parse_answer(item, bad)


def test_same_name_resumes_after_a_restart(tmp_path):
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.web.human import SLACK_S, HumanStudy

    data, videos = make_study(tmp_path)
    adapter, items = load_benchmark(data, videos=videos)

    def study():
        return HumanStudy(
            adapter, items, data=data, videos=videos, out=tmp_path / "r", mode="streaming"
        )

    first = study()
    p = first.join("Zed")
    p.start("a.mp4")
    time.sleep(1.6)
    assert p.progress("a.mp4", 2.0) == 2.0
    assert p.question()["item_id"] == "1"
    p.answer("1", 0, "C")
    first.close()

    second = study()  # a restarted server: state comes back from predictions.jsonl
    again = second.join("ZED")
    state = again.state()
    assert state["name"] == "Zed" and state["model"] == "human:Zed"
    assert (state["answered"], state["next_time"], state["video"]["reached"]) == (1, 3.5, 2.0)
    again.start("a.mp4")
    # The clock resumes from the answered point (from 0 it would allow only SLACK_S).
    assert again.progress("a.mp4", 9.0) == pytest.approx(min(3.5, 2.0 + SLACK_S), abs=0.1)
    second.close()
    records = read_records(tmp_path / "r" / "zed-streaming" / "predictions.jsonl")
    assert [(r.item_id, r.extracted, r.score) for r in records] == [("1", "C", 0.0)]


def test_the_served_prefix_grows_with_each_answer_and_never_passes_the_next_question(
    tmp_path,
):
    """A participant's browser can only ever hold the video up to the question it is at."""
    import av

    from streamspatial.video.synthetic import read_frame_index

    data, videos = make_study(tmp_path)
    app, study = build_app(
        data=data, videos=videos, out=tmp_path / "runs", mode="streaming", annotations=None
    )

    def frames(srv, url: str) -> list[int]:
        blob = httpx.get(srv.url + url).content
        (tmp_path / "got.mp4").write_bytes(blob)
        with av.open(str(tmp_path / "got.mp4")) as got:
            return [read_frame_index(f.to_ndarray(format="rgb24")) for f in got.decode(video=0)]

    with ServerThread(app) as srv:
        state = httpx.post(srv.url + "/api/participants", json={"name": "Lu"}).json()
        assert frames(srv, state["video"]["url"]) == list(range(21))  # up to 2.0 s
        p = study.get("lu")
        p.start("a.mp4")
        p.videos[0].started -= 5  # as if 5 s had been watched
        p.progress("a.mp4", 2.0)
        p.question()
        p.answer("1", 0, "B")
        url = p.state()["video"]["url"]
        assert url.endswith("&until=3.5")
        assert frames(srv, url) == list(range(36))  # up to 3.5 s, the next question
    study.close()
