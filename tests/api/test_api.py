"""The public API: ``evaluate`` gives the CLI's numbers, a user's agent plugs in from outside
the package (in code or as an installed plugin), and the example runs as documented."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import streamspatial
from memory_agent_fixtures import write_bench
from streamspatial.agents import Agent, Ask, agent_names, register_agent
from streamspatial.core.errors import StreamspatialError
from streamspatial.testing import FakeOpenAIServer

FPS = 4.0
REPO = Path(__file__).resolve().parents[2]


def answer_from_frames(req) -> str:
    """A letter from the newest frame shown: scores vary with the policy, deterministically."""
    seen = [i for i in req.frame_indices if i is not None]
    return "ABCD"[(max(seen) if seen else 0) % 4]


@pytest.fixture(autouse=True)
def own_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Agents these tests register stay in them (other tests list every registered agent)."""
    from streamspatial.agents import registry

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("api")
    queries = [("a.mp4", [3.0]), ("a.mp4", [5.5, 9.0]), ("b.mp4", [2.0]), ("b.mp4", [7.25])]
    queries += [("a.mp4", [float(t)]) for t in range(1, 11)]
    return write_bench(root, {"a.mp4": 12.0, "b.mp4": 10.0}, queries, FPS)


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "streamspatial", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, **(env or {})},
    )


def test_evaluate_gives_the_headline_the_cli_reports(bench, tmp_path: Path) -> None:
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        common = ["--model", "openai:m", "--base-url", server.base_url, "--policy", "uniform-4"]
        run = cli("run", "--data", data, "--videos", videos, "--out", tmp_path / "cli", *common,
                  "--no-progress")  # fmt: skip
        assert run.returncode == 0, run.stderr
        report = cli("report", tmp_path / "cli")
        assert report.returncode == 0, report.stderr
        result = streamspatial.evaluate(
            data,
            videos,
            model="openai:m",
            base_url=server.base_url,
            policy="uniform-4",
            out=tmp_path / "api",
            progress=False,
        )
    scores = json.loads((tmp_path / "cli" / "scores.json").read_text())
    assert result.headline == scores["headline"]
    assert 0 < result.headline["Overall"] < 1  # a real mix of right and wrong answers
    assert json.loads(json.dumps(result.tables["results"].to_dict())) == scores["table"]
    assert result.benchmark == "OVO-S-Bench" and result.scorer == scores["scorer"]
    assert len(result.records) == scores["counts"]["records"] == 15
    pytest.importorskip("pandas")
    frame = result.to_frame()
    assert len(frame) == 15 and {"item_id", "score", "diagnostics.compression_ratio"} <= set(
        frame.columns
    )
    assert result.run_dir == tmp_path / "api"


def test_evaluate_without_a_folder_runs_in_a_temporary_one(bench) -> None:
    data, videos = bench
    result = streamspatial.evaluate(data, videos, model="random", policy="none", progress=False)
    assert result.run_dir is None and len(result.records) == 15
    assert set(result.headline) >= {"Overall"}


def test_load_benchmark(bench) -> None:
    data, videos = bench
    b = streamspatial.load_benchmark(data, videos=videos)
    assert (b.format, b.title, len(b), b.query_points) == ("ovos", "OVO-S-Bench", 14, 15)


def test_user_mistakes_are_one_line_errors(bench) -> None:
    data, videos = bench
    with pytest.raises(StreamspatialError, match="unknown agent 'nope'; expected one of"):
        streamspatial.evaluate(data, videos, model="random", agent="nope")
    with pytest.raises(StreamspatialError, match="expected a registered agent name or an Agent"):
        streamspatial.evaluate(data, videos, model="random", agent=object)  # type: ignore[arg-type]


class Blind(Agent):
    """The smallest agent: no frames, the benchmark's prompt only."""

    name = "blind-test-agent"

    def frames_needed(self, item, query, stream):
        return []

    async def decide(self, ctx):
        from streamspatial.models.types import GenerationParams, TextPart

        return Ask(ctx.request([TextPart(ctx.prompt(text_only=True))], params=GenerationParams()))


def test_an_agent_subclass_plugs_in_by_class_or_by_registered_name(bench) -> None:
    data, videos = bench
    by_class = streamspatial.evaluate(data, videos, model="random", agent=Blind, progress=False)
    assert {r.agent for r in by_class.records} == {"blind-test-agent"}
    assert all(r.frame_times == [] for r in by_class.records)
    register_agent("blind-alias", Blind)
    assert "blind-alias" in agent_names()
    by_name = streamspatial.evaluate(
        data, videos, model="random", agent="blind-alias", progress=False
    )
    assert by_name.headline == by_class.headline  # random is seeded: the same answers
    with pytest.raises(StreamspatialError, match="already registered"):
        register_agent("policy", Blind)


def test_runner_takes_a_factory_not_an_instance(bench) -> None:
    from streamspatial.agents import PolicyAgent
    from streamspatial.bench.registry import load_benchmark
    from streamspatial.eval.runner import Runner

    data, videos = bench
    adapter, items = load_benchmark(data, videos=videos)
    with pytest.raises(TypeError, match="takes a factory"):
        Runner(adapter=adapter, items=items, backend=None, agent=PolicyAgent("none"),  # type: ignore[arg-type]
               writer=None, videos=videos, model="random")  # type: ignore[arg-type]  # fmt: skip


PLUGIN = """
from streamspatial.agents import Ask, StreamingAgent
from streamspatial.models.types import GenerationParams, ImagePart, TextPart


class LastFrame(StreamingAgent):
    name = "last-frame-plugin"

    def frames_needed(self, item, query, stream):
        return [min(int(query.time * stream.fps), stream.n_frames - 1)]

    def reset(self, stream):
        self.frame = None

    def observe(self, frame):
        self.frame = frame

    async def decide(self, ctx):
        parts = [ImagePart(self.frame.jpeg, self.frame.time), TextPart(ctx.prompt())]
        return Ask(ctx.request(parts, params=GenerationParams()))
"""


def test_an_installed_plugin_is_found_by_the_cli(bench, tmp_path: Path) -> None:
    """An entry point in the ``streamspatial.agents`` group: ``--agent NAME`` finds it."""
    data, videos = bench
    site = tmp_path / "site"
    (site / "plugin_agents-0.1.dist-info").mkdir(parents=True)
    (site / "plugin_agents.py").write_text(PLUGIN)
    (site / "plugin_agents-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: plugin-agents\nVersion: 0.1\n"
    )
    (site / "plugin_agents-0.1.dist-info" / "entry_points.txt").write_text(
        "[streamspatial.agents]\nlast-frame-plugin = plugin_agents:LastFrame\n"
    )
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        proc = cli("run", "--data", data, "--videos", videos, "--model", "openai:m",
                   "--base-url", server.base_url, "--agent", "last-frame-plugin",
                   "--out", tmp_path / "run", "--no-progress", env=env)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert len(server.requests) == 15
        assert all(len(r.frame_indices) == 1 for r in server.requests)
        assert not any(r.violates_causality() for r in server.requests)
    records = [json.loads(x) for x in (tmp_path / "run" / "predictions.jsonl").open()]
    assert {r["agent"] for r in records} == {"last-frame-plugin"}
    unknown = cli("run", "--data", data, "--videos", videos, "--model", "random", "--agent",
                  "nope", "--out", tmp_path / "x", env=env)  # fmt: skip
    assert unknown.returncode == 2 and "last-frame-plugin" in unknown.stderr
    assert not (tmp_path / "x").exists()


def test_custom_agent_example_runs_end_to_end() -> None:
    pytest.importorskip("mujoco")
    proc = subprocess.run(
        [sys.executable, str(REPO / "examples" / "custom_agent.py")],
        capture_output=True,
        text=True,
        timeout=280,
        env={**os.environ, "STREAMSPATIAL_MODEL": "random"},
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "OVO-S-Bench, agent last-4@1fps, model random:" in out
    assert "requests holding a frame after their query time: 0" in out
    assert "prefix guard: the peeking agent was refused: frame " in out
    assert "requested from a prefix that ends at frame" in out
