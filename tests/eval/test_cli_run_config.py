"""Run configuration: YAML files, flag precedence, one-line errors, the result hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from streamspatial.core.errors import InputError
from streamspatial.eval.config import build_config

BASE = {"data": Path("b.jsonl"), "videos": Path("v"), "model": "random", "out": Path("o")}


def test_yaml_holds_any_flag_and_flags_win(tmp_path: Path) -> None:
    cfg_file = tmp_path / "run.yaml"
    cfg_file.write_text(
        "data: b.jsonl\nvideos: v\nmodel: openai:m\nout: o\n"
        "policy: single@query\nbase-url: http://127.0.0.1:9/v1\n"
        "concurrency: 3\nextra_body: {chat_template_kwargs: {enable_thinking: true}}\n"
    )
    cfg = build_config({"policy": "uniform-8", "model": None}, cfg_file)
    assert cfg.policy == "uniform-8" and cfg.model == "openai:m" and cfg.concurrency == 3
    assert cfg.base_url == "http://127.0.0.1:9/v1"
    assert cfg.extra_body == {"chat_template_kwargs": {"enable_thinking": True}}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("modle: random\n", r"run.yaml: field 'modle': unknown option"),
        ("concurrency: many\n", r"run.yaml: field 'concurrency': expected a valid integer"),
        ("concurrency: 0\n", r"run.yaml: field 'concurrency': expected greater than or equal"),
        ("- a\n- b\n", r"run.yaml: expected a mapping"),
        ("a: [1,\n", r"run.yaml:\d+: expected valid YAML"),
    ],
)
def test_config_errors_are_one_line_naming_file_and_key(
    tmp_path: Path, text: str, message: str
) -> None:
    cfg_file = tmp_path / "run.yaml"
    cfg_file.write_text(text)
    with pytest.raises(InputError, match=message) as exc:
        build_config({k: v for k, v in BASE.items()}, cfg_file)
    assert "\n" not in str(exc.value)


def test_missing_required_option_named() -> None:
    with pytest.raises(InputError, match="field 'model': required option missing"):
        build_config({"data": Path("b"), "videos": Path("v"), "out": Path("o")})


def test_hash_ignores_execution_only_options(tmp_path: Path) -> None:
    a = build_config({**BASE, "concurrency": 1})
    b = build_config({**BASE, "concurrency": 32, "cache_dir": tmp_path, "progress": False})
    c = build_config({**BASE, "policy": "uniform-32"})
    assert a.config_hash() == b.config_hash() != c.config_hash()
    assert "api_key" not in a.public_dict()
