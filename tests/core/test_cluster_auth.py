"""A Ray cluster that refuses this process's authentication is named in one line, exit 2,
before a generation plans anything or makes a folder (the real cluster:
tests/core/test_ray_cluster.py).

Here the cluster is a loopback TCP listener and the probe's verdict is Ray's refusal; the
probe itself (one GCS client connection in a child process) runs against real token-auth nodes
in the slow test.
"""

from __future__ import annotations

import socket

import pytest

from streamspatial.cli import main
from streamspatial.core import cluster
from streamspatial.core.errors import StreamspatialError

pytest.importorskip("ray")


@pytest.fixture
def listener():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield f"127.0.0.1:{s.getsockname()[1]}"


@pytest.fixture
def refusing(monkeypatch):
    cluster._probe.cache_clear()
    monkeypatch.setattr(
        cluster, "_probe", lambda address, settings: {"ok": False, "error": "AuthenticationError"}
    )


def test_no_token_mode_names_the_mode_and_where_the_token_goes(listener, refusing, monkeypatch):
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    with pytest.raises(StreamspatialError) as exc:
        cluster.check_address(listener)
    line = str(exc.value)
    assert line.startswith(f"--address {listener}: the Ray cluster asks for token authentication")
    assert "set RAY_AUTH_MODE=token" in line and "RAY_AUTH_TOKEN_PATH" in line
    assert "\n" not in line


def test_a_wrong_token_is_named_as_refused(listener, refusing, monkeypatch):
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    monkeypatch.setenv("RAY_AUTH_TOKEN", "s3cret-token-value")
    with pytest.raises(StreamspatialError, match="refused this machine's authentication") as exc:
        cluster.check_address(listener)
    assert "s3cret-token-value" not in str(exc.value)


def test_any_other_verdict_is_left_to_ray(listener, monkeypatch):
    monkeypatch.setattr(cluster, "_probe", lambda address, settings: {})
    cluster.check_address(listener)  # no verdict: ray.init will say what is wrong
    monkeypatch.setattr(cluster, "_probe", lambda address, settings: {"ok": True})
    cluster.check_address(listener)


def test_generation_is_refused_before_any_folder(listener, refusing, tmp_path, capsys, monkeypatch):
    pytest.importorskip("mujoco")
    # a local ray.init() earlier in this process turned token mode on here (Ray sets it)
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    out = tmp_path / "bench"
    with pytest.raises(SystemExit) as exc:
        main(["sim", "generate", "--out", str(out), "--houses", "1", "--minutes", "0.1",
              "--executor", "ray", "--address", listener, "--no-progress"])  # fmt: skip
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2 and len(err) == 1 and "token authentication" in err[0]
    assert not out.exists()


def test_the_probe_of_a_real_listener_that_is_no_cluster_gives_no_verdict(listener):
    """The child really runs Ray's GCS client: against something that is not a GCS it says
    nothing about authentication (and ray.init then reports the failure itself)."""
    cluster._probe.cache_clear()
    outcome = cluster._probe(listener, ("", "", "", ""))
    assert outcome.get("error") != "AuthenticationError"
