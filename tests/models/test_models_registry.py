"""Model specs: what each resolves to and the one-line errors for mistakes."""

from __future__ import annotations

import pytest

from streamspatial.core.errors import StreamspatialError
from streamspatial.models.baselines import FrequentBackend, RandomBackend
from streamspatial.models.openai_compat import OpenAIChatBackend
from streamspatial.models.registry import load_backend


def test_specs_resolve_to_backends(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert isinstance(load_backend("random", seed=3), RandomBackend)
    assert load_backend("random", seed=3).seed == 3
    assert isinstance(load_backend("frequent", records=[("a", "t", "A")]), FrequentBackend)
    b = load_backend(
        "openai:qwen2.5-vl-7b", base_url="http://127.0.0.1:9/v1", concurrency=4, api_key=None
    )
    assert isinstance(b, OpenAIChatBackend)
    assert b.model == "qwen2.5-vl-7b" and b.concurrency == 4 and b.name == "openai:qwen2.5-vl-7b"
    # options common to every spec are accepted (and ignored) by the baselines
    assert isinstance(load_backend("random", concurrency=8, params=None), RandomBackend)


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("gpt4", {}, "unknown model spec 'gpt4'"),
        ("openai:", {}, "expected openai:<model-name>"),
        ("hf:", {}, "expected hf:<local-path>"),
        ("random:3", {}, "random takes no argument"),
        ("frequent", {}, "needs the benchmark's items"),
        ("random", {"base_url": "http://x"}, "does not take option(s) base_url"),
        ("openai:gpt-x", {}, "no API key"),
    ],
)
def test_spec_mistakes_are_one_line_user_errors(spec, options, message, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(StreamspatialError) as exc:
        load_backend(spec, **options)
    assert message in str(exc.value) and "\n" not in str(exc.value)


def test_hf_spec_needs_an_existing_folder(tmp_path):
    with pytest.raises(StreamspatialError, match="expected a local model folder"):
        load_backend(f"hf:{tmp_path / 'missing'}")


def test_missing_key_message_never_contains_a_key(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(StreamspatialError) as exc:
        load_backend("openai:gpt-x")
    assert "OPENAI_API_KEY" in str(exc.value)
