"""``streamspatial run`` as users meet it in their first week: two terminals on one folder,
secrets in URLs, servers that echo keys or drip bytes, dead endpoints, late mistakes, signals,
retries of multi-turn chains, sampling parameters a server refuses.

Each test runs the real CLI (a subprocess where a second process or a signal matters, else in
this process) against the loopback server over real HTTP, and reads what the run left.
"""

from __future__ import annotations

import io
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, make_videos, write_ovos
from streamspatial.eval.results import PREDICTIONS, RUN_JSON, read_records, read_run_json
from streamspatial.testing.openai_server import FakeOpenAIServer

KEY = "sk-reliab-canary-5d1e9a0c7b3f4e21"
URL_KEY = "urlpass-6c0b2d9e8f7a"
N = 11  # query points of the OVO-S fixture


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["OPENAI_API_KEY"] = KEY
    env.update(extra)
    return env


def cli(*args: object) -> list[str]:
    return [sys.executable, "-m", "streamspatial", *map(str, args)]


def run_args(data: Path, videos: Path, out: Path, base_url: str, *extra: object) -> list[str]:
    return cli(
        "run", "--data", data, "--videos", videos, "--model", "openai:test-model",
        "--policy", "uniform-4", "--out", out, "--base-url", base_url, "--frame-size", "112",
        "--no-progress", *extra,
    )  # fmt: skip


@pytest.fixture
def invoke(monkeypatch, capsys):
    """The CLI in this process: (exit code, stdout + stderr)."""
    from streamspatial.cli import main

    for k in [k for k in os.environ if k.startswith("OPENAI_")]:
        monkeypatch.delenv(k)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)

    def call(args: list[str]) -> tuple[int, str]:
        capsys.readouterr()
        try:
            main(args[3:])
            rc = 0
        except SystemExit as exc:
            rc = int(exc.code or 0)
        captured = capsys.readouterr()
        return rc, captured.out + captured.err

    return call


def lines(out: Path) -> int:
    path = out / PREDICTIONS
    return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_for(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.01)


# -- one writer per run folder ---------------------------------------------------------------


def test_a_second_run_into_the_same_folder_is_refused_and_the_first_completes(bench, tmp_path):
    data, videos = bench
    out = tmp_path / "run"
    # The first run's second answer waits until the second run has ended, so the first is
    # still running however slowly the second starts (a fixed latency raced on a loaded machine).
    gate, answered = threading.Event(), itertools.count()

    def held(req) -> str:
        if next(answered) >= 1:
            gate.wait(60)
        return answer_from_frames(req)

    with FakeOpenAIServer(held, fps=FPS) as server:
        first = subprocess.Popen(
            [*run_args(data, videos, out, server.base_url), "--concurrency", "1"],
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_for(lambda: lines(out) >= 1 or first.poll() is not None)
        assert first.poll() is None, first.communicate()
        second = subprocess.run(
            run_args(data, videos, out, server.base_url),
            env=environment(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        gate.set()
        _, err = first.communicate(timeout=120)
    assert second.returncode == 2
    assert second.stderr.count("\n") == 1 and "Traceback" not in second.stderr
    assert str(out) in second.stderr and f"process {first.pid}" in second.stderr
    assert first.returncode == 0, err
    records = read_records(out / PREDICTIONS)
    assert lines(out) == N and len({r.key for r in records}) == N  # one record per point
    assert read_run_json(out)["status"] == "complete"


def test_the_lock_is_free_again_after_a_run_however_it_ended(bench, tmp_path, invoke):
    from streamspatial.eval.results import lock_holder

    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        assert invoke(run_args(data, videos, out, server.base_url))[0] == 0
    assert lock_holder(out) is None
    dead = "http://127.0.0.1:9/v1"
    rc, _ = invoke(run_args(data, videos, out, dead, "--force", "--policy", "single@query"))
    assert rc == 2 and lock_holder(out) is None


# -- run.json always ends in a final state ----------------------------------------------------


def test_a_dead_endpoint_stops_at_once_with_one_line_and_a_failed_run_json(bench, tmp_path):
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer("A") as server:
        url = server.base_url  # closed again: nothing listens there now
    proc = subprocess.run(
        run_args(data, videos, out, url, "--max-retries", "6"),
        env=environment(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "cannot reach" in proc.stderr, proc.stderr
    assert url in proc.stderr and "Traceback" not in proc.stderr
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["status"] == "failed" and "cannot reach" in meta["reason"]
    assert lines(out) == 0  # no error record per query point: the run stopped


def test_a_mistake_found_late_leaves_run_json_failed_with_the_reason(bench, tmp_path, invoke):
    data, videos = bench
    not_a_model = tmp_path / "empty-model"
    not_a_model.mkdir()
    out = tmp_path / "run"
    rc, text = invoke(
        cli("run", "--data", data, "--videos", videos, "--model", f"hf:{not_a_model}",
            "--out", out, "--policy", "single@query")
    )  # fmt: skip
    # With the hf extra the model folder is found wanting once the run has started; without
    # it, the extra is named before any folder exists (placing the model needs torch).
    if not find_spec("torch"):
        assert rc == 2 and text.count("\n") == 1 and "pip install streamspatial[hf]" in text
        assert not out.exists()
        return
    why = "cannot load the model"
    assert rc == 2 and text.count("\n") == 1 and why in text, text
    meta = json.loads((out / RUN_JSON).read_text())
    assert meta["status"] == "failed" and why in meta["reason"]


def test_an_unknown_model_spec_is_refused_before_any_folder_exists(bench, tmp_path, invoke):
    data, videos = bench
    out = tmp_path / "run"
    rc, text = invoke(
        cli("run", "--data", data, "--videos", videos, "--model", "gpt4", "--out", out)
    )
    assert rc == 2 and "unknown model spec" in text and text.count("\n") == 1
    assert not out.exists()


def test_sigterm_leaves_run_json_interrupted_and_sigkill_reads_as_killed(bench, tmp_path):
    data, videos = bench
    for sig, status in ((signal.SIGTERM, "interrupted"), (signal.SIGKILL, "killed")):
        out = tmp_path / sig.name
        with FakeOpenAIServer(answer_from_frames, fps=FPS, latency=0.3) as server:
            proc = subprocess.Popen(
                [*run_args(data, videos, out, server.base_url), "--concurrency", "1"],
                env=environment(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            wait_for(lambda o=out, p=proc: lines(o) >= 1 or p.poll() is not None)
            proc.send_signal(sig)
            _, err = proc.communicate(timeout=60)
        assert 0 < lines(out) < N
        meta = read_run_json(out)
        assert meta["status"] == status, (sig, meta["status"], err)
        assert meta["reason"]
        if sig == signal.SIGTERM:
            assert proc.returncode == 143 and "Traceback" not in err


# -- secrets ------------------------------------------------------------------------------------


def test_no_secret_or_secret_prefix_in_any_file_or_output(bench, tmp_path, invoke):
    """A key in the URL's userinfo and in its query, a key the server echoes in answers and in
    error bodies, and a prefix of the key a server cut short: none reaches a file or a line."""
    data, videos = bench
    out, cache = tmp_path / "run", tmp_path / "cache"

    def leaky(req) -> str:  # answers, and shows a prefix of the key as a careless proxy might
        return f"{answer_from_frames(req)} (key {KEY[:12]}…)"

    texts = []
    faults = ["echo-key-error", "echo-key", None, "echo-key", "500"] * 3
    with FakeOpenAIServer(leaky, fps=FPS, faults=faults) as server:
        base = server.base_url.replace("http://", f"http://proxyuser:{URL_KEY}@")
        base += f"?api_key={URL_KEY}&api-version=2024"
        rc, text = invoke(
            run_args(data, videos, out, base, "--cache-dir", cache, "--max-retries", "1")
        )
        texts.append(text)
        assert server.requests  # the server was reached, through the URL with credentials
        rc, text = invoke(run_args(data, videos, out, base, "--cache-dir", cache, "--retry-errors"))
        texts.append(text)
        assert rc == 0, text
        echoed = [r for r in read_records(out / PREDICTIONS) if "you sent" in r.raw_output]
        assert echoed  # the echo happened, and was masked
    rc, text = invoke(cli("report", out))
    texts.append(text)
    meta = read_run_json(out)
    assert "proxyuser" not in meta["config"]["base_url"]
    assert "***@127.0.0.1" in meta["config"]["base_url"]
    for secret in (KEY, URL_KEY):
        for prefix in (secret, secret[:8]):
            for t in texts:
                assert prefix not in t
            for p in [*out.rglob("*"), *cache.rglob("*")]:
                if p.is_file():
                    assert prefix.encode() not in p.read_bytes(), (p, prefix)


def test_redact_masks_before_it_clips():
    from streamspatial.core import secrets

    secrets.register(KEY)
    long = "x" * 190 + f" invalid key {KEY} please"
    clipped = secrets.clip(long, 200)
    assert KEY[:6] not in clipped and len(clipped) <= 201
    assert secrets.redact(f"see https://u:{URL_KEY}@h.example/v1?token=t0ps3cr3t&x=1") == (
        "see https://***@h.example/v1?token=***&x=1"
    )


# -- the model boundary -------------------------------------------------------------------------


def test_sampling_parameters_are_the_benchmarks_unless_set_and_per_model(bench, tmp_path, invoke):
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        assert invoke(run_args(data, videos, tmp_path / "plain", server.base_url))[0] == 0
        plain = [set(r.body) for r in server.requests]
        server.requests.clear()
        config = tmp_path / "run.yaml"
        config.write_text(
            "temperature: 0\n"
            "sampling:\n"
            "  openai:test-model: {max_tokens: 77, top_p: 0.5}\n"
            "  openai:o3-mini: {temperature: null, max_tokens: 9000}\n"
        )
        rc, text = invoke(
            run_args(data, videos, tmp_path / "set", server.base_url, "--config", config)
        )
        assert rc == 0, text
        bodies = [r.body for r in server.requests]
    # OVO-S-Bench's own decoding (App. G.2), no flag given
    assert plain and all(
        keys == {"model", "messages", "temperature", "max_tokens"} for keys in plain
    )
    assert all((b["temperature"], b["max_tokens"], b["top_p"]) == (0, 77, 0.5) for b in bodies)
    assert json.loads((tmp_path / "set" / RUN_JSON).read_text())["config"]["sampling"]


def test_timeout_is_a_total_deadline_for_a_server_that_drips(bench, tmp_path, invoke):
    """Each byte arrives well within --timeout; the whole answer would take ~40 s."""
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer("A", faults=["drip"] * 40, drip_seconds=0.1) as server:
        rc, text = invoke(
            run_args(data, videos, out, server.base_url, "--timeout", "1", "--max-retries", "0",
                     "--limit", "1", "--concurrency", "1")
        )  # fmt: skip
    assert rc == 1, text
    (rec,) = read_records(out / PREDICTIONS)
    assert rec.error == "timed out after 1s"


def test_frames_smaller_than_frame_size_are_sent_as_they_are(bench, tmp_path, invoke):
    from PIL import Image

    data, videos = bench
    with FakeOpenAIServer("A", keep_images=True) as server:
        args = run_args(data, videos, tmp_path / "run", server.base_url, "--limit", "1")
        args[args.index("--frame-size") + 1] = "448"
        assert invoke(args)[0] == 0
        sizes = {Image.open(io.BytesIO(b)).size for r in server.requests for b in r.image_bytes}
    assert sizes == {(160, 120)}  # the video's own size: never upscaled to 597×448


# -- resume ---------------------------------------------------------------------------------------


def write_chain(root: Path) -> tuple[Path, Path]:
    videos = make_videos(root, ["h.mp4"])
    data = root / "s3.jsonl"
    rows = [
        {"id": "q1", "video": "src/h.mp4", "task": "identification_closest", "format": "mc",
         "question": "Which object is closest to the camera?",
         "options": ["the red chair", "the blue lamp", "the green sofa", "the oak table"],
         "query_time": 2.0, "answer": "A"},
        {"id": "q2", "video": "src/h.mp4", "task": "tem_spatial_distance_ref", "format": "num",
         "question": "How far is {prev_answer} from the door, in metres?", "query_time": 4.0,
         "answer": 2.5, "depends_on": "q1"},
        {"id": "q3", "video": "src/h.mp4", "task": "identification_closest", "format": "mc",
         "question": "Which object is closest now?",
         "options": ["the red chair", "the blue lamp", "the green sofa", "the oak table"],
         "query_time": 5.0, "answer": "B"},
    ]  # fmt: skip
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return data, videos


def test_retry_errors_hands_the_follow_up_the_retried_answer(tmp_path, invoke):
    data, videos = write_chain(tmp_path)
    out = tmp_path / "run"

    def model(req) -> str:
        return "C" if "Options:" in req.text else "3.0 metres"

    def args(url: str, *extra: str) -> list[str]:
        return cli("run", "--data", data, "--videos", videos, "--model", "openai:m",
                   "--policy", "single@query", "--out", out, "--base-url", url,
                   "--concurrency", "1", "--max-retries", "0", *extra)  # fmt: skip

    with FakeOpenAIServer(model, fps=FPS, faults=["500"]) as server:  # the first turn fails
        rc, _ = invoke(args(server.base_url))
    assert rc == 1
    first = {r.item_id: r for r in read_records(out / PREDICTIONS)}
    assert first["q1"].error and not first["q2"].error
    # the dependant was answered on an errored first turn: it is retried with it
    with FakeOpenAIServer(model, fps=FPS) as server:
        rc, text = invoke(args(server.base_url, "--retry-errors"))
        asked = [r.text for r in server.requests]
    assert rc == 0, text
    assert len(asked) == 1  # only q1 held an error
    # … but the follow-up of a retried turn: a second retry with q2 errored too
    path = out / PREDICTIONS
    recs = [json.loads(ln) for ln in path.read_text().splitlines()]
    for r in recs:
        if r["item_id"] in ("q1", "q2"):
            r.update(error="HTTP 500", raw_output="", extracted=None, valid=False, score=0.0)
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    with FakeOpenAIServer(model, fps=FPS) as server:
        rc, text = invoke(args(server.base_url, "--retry-errors"))
        second = [r.text for r in server.requests if "from the door" in r.text]
    assert rc == 0, text
    assert len(second) == 1 and "the green sofa from the door" in second[0]


def test_the_summary_counts_invalid_answers_kept_from_before_a_retry(bench, tmp_path, invoke):
    data, videos = bench
    out = tmp_path / "run"
    # the first four calls fail, every answer is unparseable
    with FakeOpenAIServer("no idea", faults=["500"] * 4) as server:
        rc, _ = invoke(
            run_args(data, videos, out, server.base_url, "--max-retries", "0", "--concurrency", "1")
        )
    assert rc == 1
    with FakeOpenAIServer("A") as server:
        rc, text = invoke(run_args(data, videos, out, server.base_url, "--retry-errors"))
    assert rc == 0
    assert "0 with errors, 7 invalid" in text, text  # the 7 kept, not the 0 new ones
    counts = read_run_json(out)["counts"]
    assert counts["invalid_total"] == 7 and counts["errors_total"] == 0


# -- memory agents ------------------------------------------------------------------------------


def test_a_failed_memory_call_is_recorded_then_retried(bench, tmp_path, invoke):
    data, videos = bench
    out = tmp_path / "run"

    def args(url: str, *extra: str) -> list[str]:
        return [*run_args(data, videos, out, url, "--agent", "folding", "--fold-every", "2",
                          "--max-retries", "0", "--concurrency", "1"), *extra]  # fmt: skip

    folds: list[str] = []

    def first_fold_fails(req) -> str | None:  # the first fold summary the server is asked for
        if "Memory folding at" not in req.text:
            return None
        folds.append(req.text)
        return "500" if len(folds) == 1 else None

    with FakeOpenAIServer("A", fault_for=first_fold_fails) as server:
        rc, _ = invoke(args(server.base_url))
    assert rc == 1
    errors = [r for r in read_records(out / PREDICTIONS) if r.error]
    assert len(errors) == 1 and errors[0].error.startswith("memory fold at 2 s failed: HTTP 500")
    assert errors[0].raw_output == "" and not errors[0].valid
    with FakeOpenAIServer("A") as server:
        rc, _ = invoke(args(server.base_url, "--retry-errors"))
    assert rc == 0 and not any(r.error for r in read_records(out / PREDICTIONS))


def test_testing_exports_build_tiny_vlm_as_documented():
    import streamspatial.testing as testing
    from streamspatial.testing import build_tiny_vlm
    from streamspatial.testing.tiny_vlm import build_tiny_vlm as direct

    assert build_tiny_vlm is direct and "build_tiny_vlm" in testing.__all__
