"""Each benchmark's decoding is sent by default, and what overrides it, field by field.

Order, strongest first: a flag, the model's ``sampling:`` entry, the configuration file's own
values, the model family's thinking recipe (OVO-S-Bench Table 14), the benchmark's declared
decoding; ``leave_to_server`` sends a field nowhere.  Checked on the request bodies a loopback
server receives, and on ``run.json``'s record of what was sent and why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from runner_fixtures import FPS, answer_from_frames, make_videos, write_ovos
from streamspatial.api import evaluate
from streamspatial.bench.registry import ADAPTERS
from streamspatial.core.errors import StreamspatialError
from streamspatial.eval.config import build_config
from streamspatial.eval.decoding import resolve_decoding
from streamspatial.eval.results import RUN_JSON
from streamspatial.models.recipes import recipe_for
from streamspatial.testing.openai_server import FakeOpenAIServer

OVOS = ADAPTERS["ovos"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> tuple[Path, Path]:
    return write_ovos(tmp_path_factory.mktemp("bench"))


def sent(server: FakeOpenAIServer) -> list[dict]:
    fields = ("temperature", "max_tokens", "top_p")
    return [{k: r.body[k] for k in fields if k in r.body} for r in server.requests]


def test_a_plain_ovos_run_sends_greedy_1024_and_records_why(bench, tmp_path):
    data, videos = bench
    with FakeOpenAIServer(answer_from_frames, fps=FPS) as server:
        evaluate(data, videos, model="openai:test-model", policy="uniform-4",
                 base_url=server.base_url, out=tmp_path / "run", frame_size=64)  # fmt: skip
    bodies = sent(server)
    assert len(bodies) == 11
    assert all(b == {"temperature": 0.0, "max_tokens": 1024} for b in bodies)
    meta = json.loads((tmp_path / "run" / RUN_JSON).read_text())
    assert meta["decoding"]["sent"] == {"temperature": 0.0, "max_tokens": 1024}
    assert meta["decoding"]["from"]["temperature"].startswith("OVO-S-Bench: OVO-S-Bench App. G.2")
    assert meta["decoding"]["from"]["top_p"].startswith("server")


def test_vsi_super_sends_its_own_16_tokens(tmp_path):
    videos = make_videos(tmp_path, ["a.mp4"])
    data = tmp_path / "vsc.jsonl"
    row = {"video_path": "src/a.mp4", "question": "How many chairs?", "answer": 3,
           "split": "10mins_streaming", "query_times": [2.0, 4.0], "answers": [1, 2]}  # fmt: skip
    data.write_text(json.dumps(row) + "\n")
    with FakeOpenAIServer("2", fps=FPS) as server:
        result = evaluate(data, videos, model="openai:test-model", policy="uniform-4",
                          base_url=server.base_url, frame_size=64)  # fmt: skip
    assert result.benchmark and len(server.requests) == 2
    assert sent(server) == [{"temperature": 0.0, "max_tokens": 16}] * 2


def config(tmp_path: Path, cli: dict, file: dict | None = None):
    given = {"data": "d.jsonl", "videos": "v", "model": "openai:m", "out": "o", **cli}
    path = None
    if file is not None:
        import yaml

        path = tmp_path / "run.yaml"
        path.write_text(yaml.safe_dump(file))
    return build_config(given, path)


def test_a_flag_beats_the_models_entry_which_beats_the_files_values(tmp_path):
    file = {"temperature": 0.5, "max_tokens": 300, "top_p": 0.8,
            "sampling": {"openai:m": {"max_tokens": 50, "top_p": 0.7}}}  # fmt: skip
    cfg = config(tmp_path, {"top_p": 0.9}, file)
    d = resolve_decoding(cfg, OVOS, None)
    assert d.params.as_dict() == {"temperature": 0.5, "max_tokens": 50, "top_p": 0.9}
    assert d.sources["top_p"] == "flag"
    assert d.sources["max_tokens"] == "sampling: openai:m"
    assert d.sources["temperature"] == f"config {tmp_path / 'run.yaml'}"
    # the same value as a flag beats the entry
    assert (
        resolve_decoding(config(tmp_path, {"max_tokens": 7}, file), OVOS, None).params.max_tokens
        == 7
    )


def test_leave_to_server_sends_the_field_nowhere(tmp_path):
    d = resolve_decoding(config(tmp_path, {"leave_to_server": ["temperature"]}), OVOS, None)
    assert d.params.as_dict() == {"max_tokens": 1024}
    assert d.sources["temperature"] == "server (left by flag)"
    file = {"sampling": {"openai:m": {"leave_to_server": ["max_tokens"]}}}
    d = resolve_decoding(config(tmp_path, {}, file), OVOS, None)
    assert d.params.as_dict() == {"temperature": 0.0}
    with pytest.raises(StreamspatialError, match="--temperature sets what --leave-to-server"):
        resolve_decoding(
            config(tmp_path, {"temperature": 0.2, "leave_to_server": ["temperature"]}), OVOS, None
        )


def test_thinking_on_takes_the_familys_published_budget(tmp_path):
    think = config(tmp_path, {"model": "openai:Qwen/Qwen3-VL-8B-Thinking"})
    d = resolve_decoding(think, OVOS, recipe_for(think.model))
    assert d.thinking and d.params.as_dict() == {"temperature": 0.0, "max_tokens": 8192}
    assert d.sources["max_tokens"].startswith("qwen3-vl thinking recipe (OVO-S-Bench Table 14")
    # turned on in the request for an instruct model, off for a thinking one
    on = {"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}}
    cfg = config(tmp_path, {"model": "openai:Qwen3.5-27B", **on})
    assert resolve_decoding(cfg, OVOS, recipe_for(cfg.model)).params.max_tokens == 32768
    off = {"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}
    cfg = config(tmp_path, {"model": "openai:Qwen/Qwen3-VL-8B-Thinking", **off})
    assert resolve_decoding(cfg, OVOS, recipe_for(cfg.model)).params.max_tokens == 1024
    # a flag still wins over the recipe
    cfg = config(tmp_path, {"model": "openai:Qwen/Qwen3-VL-8B-Thinking", "max_tokens": 99})
    assert resolve_decoding(cfg, OVOS, recipe_for(cfg.model)).params.max_tokens == 99


def test_a_benchmark_that_sends_no_temperature_leaves_it_to_the_server(tmp_path):
    d = resolve_decoding(config(tmp_path, {}), ADAPTERS["ostbench"], None)
    assert d.params.as_dict() == {"max_tokens": 1000}
    assert d.sources["temperature"] == "server (OST-Bench's official code sends none)"


def test_the_decoding_sent_is_part_of_the_configuration_hash(bench, tmp_path):
    data, videos = bench
    out = tmp_path / "run"
    with FakeOpenAIServer("A", fps=FPS) as server:
        common = {"model": "openai:test-model", "policy": "none", "base_url": server.base_url,
                  "out": out, "limit": 1}  # fmt: skip
        evaluate(data, videos, **common)
        evaluate(data, videos, **common, max_tokens=1024)  # the same settings: resumes
        with pytest.raises(StreamspatialError, match="different configuration"):
            evaluate(data, videos, **common, max_tokens=64)


def test_sweep_takes_the_sampling_flags_for_every_cell(bench, tmp_path):
    from streamspatial.cli.sweep import run_sweep

    data, videos = bench
    with FakeOpenAIServer("A", fps=FPS) as server:
        given = {"data": data, "videos": videos, "base_url": server.base_url, "limit": 1,
                 "max_tokens": 7, "leave_to_server": ["temperature"]}  # fmt: skip
        runs, worst = run_sweep(given, ["openai:a", "openai:b"], ["none"], "none", tmp_path)
    assert worst == 0 and len(runs) == 2
    assert sent(server) == [{"max_tokens": 7}] * len(server.requests) and server.requests
    for run in runs:
        meta = json.loads((run / RUN_JSON).read_text())
        assert meta["decoding"]["from"] == {
            "temperature": "server (left by flag)",
            "max_tokens": "flag",
            "top_p": "server (OVO-S-Bench's official code sends none)",
        }
