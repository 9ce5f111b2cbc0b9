"""Run options are declared once: RunConfig, ``streamspatial run``'s flags and ``evaluate``'s
signature are the declarations of eval.options, agents.options and models.options, and each
agent and model kind names the options it reads."""

from __future__ import annotations

import inspect
import typing

import pytest
import typer

import streamspatial as ss
from streamspatial.agents.contract import AgentOptions
from streamspatial.agents.registry import _BUILTIN, builtin_options
from streamspatial.cli import app
from streamspatial.core.options import REQUIRED, Option, merge_options
from streamspatial.eval.config import RunConfig
from streamspatial.eval.options import CLI_OPTIONS, EXECUTION_ONLY, RUN_OPTIONS
from streamspatial.models.options import COMMON_TAKES, KINDS, model_options
from streamspatial.models.registry import options_for


def _run_command() -> typer.models.CommandInfo:
    return next(c for c in app.registered_commands if c.name == "run")


def test_runconfig_fields_are_the_declarations() -> None:
    assert list(RunConfig.model_fields) == list(RUN_OPTIONS)
    for name, option in RUN_OPTIONS.items():
        info = RunConfig.model_fields[name]
        if option.required:
            assert info.is_required(), name
        elif option.factory is not None:
            assert info.get_default(call_default_factory=True) == option.factory(), name
        else:
            assert info.default == option.default, name


def test_run_flags_are_the_declarations() -> None:
    click_cmd = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    params = {p.name: p for p in click_cmd.params if p.name != "help"}
    assert list(params) == list(CLI_OPTIONS)
    for name, option in CLI_OPTIONS.items():
        assert params[name].opts == [option.spelling], name
        assert params[name].help == option.help, name
        assert params[name].is_flag is option.switch, name  # type: ignore[attr-defined]
    # every option a command line may give, in the file-only ones' absence
    assert {o.name for o in CLI_OPTIONS.values()} == {o.name for o in RUN_OPTIONS.values() if o.cli}


def test_evaluate_signature_is_the_declarations() -> None:
    params = inspect.signature(ss.evaluate).parameters
    assert not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for name, option in RUN_OPTIONS.items():
        if name == "config":
            assert name not in params
            continue
        assert name in params, name
        if name in ("data", "videos", "model", "policy", "agent", "out"):
            continue  # evaluate's own parameters, with their own defaults
        param = params[name]
        assert param.annotation == option.type, name
        expected = option.factory() if option.factory is not None else option.default
        assert param.default == expected, name
        assert param.kind is inspect.Parameter.KEYWORD_ONLY, name


def test_each_agent_declares_what_it_reads() -> None:
    fields = set(AgentOptions.__dataclass_fields__)
    declared = {e.name: {o.name for o in e.options} for e in _BUILTIN}
    assert declared["folding"] == {"fold_every", "fold_memory"}
    assert declared["scene-graph"] == declared["scene-graph-rules"] == {"perception"}
    for names in declared.values():
        assert names <= fields  # an agent reads its options from AgentOptions
    assert {o.name for o in builtin_options()} <= set(RUN_OPTIONS)
    assert [e.name for e in _BUILTIN if e.reads_perception] == ["scene-graph", "scene-graph-rules"]


def test_each_model_kind_declares_what_it_reads() -> None:
    assert set(KINDS) == {"random", "frequent", "openai", "hf"}
    assert {o.name for o in KINDS["hf"].options} == {"device", "dtype", "batch_size"}
    assert {o.name for o in model_options()} <= set(RUN_OPTIONS)
    offer = (
        {k: 1 for kind in KINDS.values() for k in kind.takes}
        | dict.fromkeys(COMMON_TAKES, 1)
        | {"bogus": 1}
    )
    for name, kind in KINDS.items():
        spec = "random" if name == "random" else f"{name}:x"
        assert set(options_for(spec, offer)) == kind.takes | COMMON_TAKES


def test_execution_only_options_keep_the_hash() -> None:
    assert {"out", "concurrency", "device", "batch_size", "base_url"} <= EXECUTION_ONLY
    assert "dtype" not in EXECUTION_ONLY  # precision changes the answers
    assert not EXECUTION_ONLY & set(RunConfig.model_fields).difference(RUN_OPTIONS)


def test_one_name_two_meanings_is_refused() -> None:
    a = Option("x", int, 1, "one")
    assert merge_options([a], [Option("x", int, 1, "one")]) == {"x": a}
    with pytest.raises(ValueError, match="declared twice"):
        merge_options([a], [Option("x", int, 2, "one")])


def test_required_and_factory_defaults() -> None:
    assert Option("d", str).required and Option("d", str).default is REQUIRED
    assert not Option("l", list, factory=list).required
    assert Option("no_x", bool, True, flag="--no-x", switch=True).param == "no_x"
    assert typing.get_origin(RUN_OPTIONS["frames"].type) is typing.Literal
