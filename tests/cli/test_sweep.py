"""``streamspatial sweep``: the grid runs through the runner, shares the cache, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from report_fixtures import model_answerer
from runner_fixtures import write_ovos
from streamspatial.cli import main
from streamspatial.cli.sweep import cell_name
from streamspatial.testing import FakeOpenAIServer


def sweep(args: list, capsys) -> tuple[int, str, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("sweep"))


def test_grid_with_thinking_both_runs_every_cell_and_reports(bench, tmp_path, capsys) -> None:
    data, videos = bench
    out = tmp_path / "sw"
    with FakeOpenAIServer(model_answerer) as server:
        args = ["sweep", "--data", data, "--videos", videos, "--models", "openai:m1,openai:m2",
                "--policies", "uniform-8,single@query", "--thinking", "both", "--out", out,
                "--base-url", server.base_url, "--no-progress"]  # fmt: skip
        code, stdout, stderr = sweep(args, capsys)
        assert code == 0, stderr
        from streamspatial.eval.results import iter_records

        records = [r for d in out.iterdir() if d.is_dir() for r in iter_records(d)]
        # Identical requests in two cells (t_q = 0: one frame either way) hit the shared
        # response cache instead of the server.
        assert len(records) == 8 * 11
        assert len(server.requests) + sum(r.cached for r in records) == 8 * 11
        flags = {
            (r.body["model"], (r.body.get("chat_template_kwargs") or {}).get("enable_thinking"))
            for r in server.requests
        }
        assert flags == {("m1", True), ("m1", False), ("m2", True), ("m2", False)}
        # Every cell is an ordinary run folder with its own scores.
        cells = [
            cell_name(m, p, t)
            for m in ("openai:m1", "openai:m2")
            for p in ("uniform-8", "single@query")
            for t in (True, False)
        ]
        for name in cells:
            meta = json.loads((out / name / "run.json").read_text())
            assert meta["status"] == "complete"
            assert (out / name / "scores.json").exists()
        # One shared frame cache: the videos are decoded by the first cell only.
        decodes = [int(line.split("; ")[-1].split()[0]) for line in stderr.splitlines()
                   if "video decode(s)" in line]  # fmt: skip
        assert decodes[0] == 3 and sum(decodes[1:]) == 0
        page = (out / "report.html").read_text()
        assert page.count('data-policy="uniform-8"') == 4  # 2 models × thinking on/off
        thinking = page[page.index('id="thinking"') : page.index('id="interval"')]
        assert thinking.count("<tr>") == 1 + 4  # header + (2 models × 2 policies)
        assert "| rank |" in stdout
        # Re-running resumes: nothing is asked again.
        before = len(server.requests)
        code, _, _ = sweep(args, capsys)
        assert code == 0 and len(server.requests) == before


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--thinking", "maybe"], "--thinking expected one of"),
        (["--models", "openai:m1,,openai:m1"], "--models lists a value twice"),
        (["--policies", "uniform-8,bogus-policy"], "bogus-policy"),
        (["--models", "random,bogus"], "unknown model spec 'bogus'"),
    ],
)
def test_mistakes_stop_before_any_run(bench, tmp_path, capsys, extra, message) -> None:
    data, videos = bench
    out = tmp_path / "sw"
    base = {"--models": "random", "--policies": "uniform-8", "--thinking": "none"}
    for flag, value in zip(extra[::2], extra[1::2], strict=True):
        base[flag] = value
    args = ["sweep", "--data", data, "--videos", videos, "--out", out, "--no-progress"]
    for flag, value in base.items():
        args += [flag, value]
    code, _, stderr = sweep(args, capsys)
    assert code == 2
    assert message in stderr and "Traceback" not in stderr
    assert len([line for line in stderr.splitlines() if line.strip()]) == 1
    assert not (out / "random__uniform-8").exists()
