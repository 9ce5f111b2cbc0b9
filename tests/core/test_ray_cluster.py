"""A real two-node Ray cluster on loopback, as Ray starts one: token authentication on.

Two ``ray start --block`` nodes (a head and one that joins it, one CPU each, their own ports,
temp dirs, token and home) run a generation and an evaluation, with the environment the nodes
have, as docs/scale.md tells; the files are a local generation's, byte for byte, and work ran
on the joining node. A driver without the token stops before anything is planned with one
line naming the authentication, and makes no folder. The test stops the nodes it started by
their process ids (each node is a session of its own: its group is its id), never with
``ray stop``, which would stop every cluster on the machine.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from generate_fixtures import files_of

pytest.importorskip("ray")
pytest.importorskip("mujoco")
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # two nodes start, then work

BIN = Path(sys.executable).parent
GENERATE = ["--houses", "2", "--minutes", "0.1", "--seed", "3", "--size", "96x72", "--fps", "5",
            "--rooms", "3", "--per-family", "1", "--no-prune", "--no-stretch",
            "--no-progress"]  # fmt: skip
# Every port a node opens, so that none is one another cluster on the machine uses.
NODE_PORTS = ("--node-manager-port", "--object-manager-port", "--metrics-export-port",
              "--runtime-env-agent-port", "--dashboard-agent-listen-port",
              "--dashboard-agent-grpc-port")  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_range(n: int = 40) -> int:
    """The first of ``n`` consecutive free ports (the node's worker ports)."""
    for _ in range(200):
        start = secrets.randbelow(20000) + 30000
        try:
            for p in range(start, start + n):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
            return start
        except OSError:
            continue
    raise RuntimeError("no free port range")


class Node:
    """``ray start ... --block`` in a session of its own; :meth:`stop` ends that session."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path):
        ports = [x for flag in NODE_PORTS for x in (flag, str(free_port()))]
        low = free_range()
        self.temp = tempfile.mkdtemp(prefix="ssray-", dir="/tmp")  # short: Ray's sockets live here
        cmd = [str(BIN / "ray"), "start", *args, "--node-ip-address", "127.0.0.1",
               "--num-cpus", "1", "--temp-dir", self.temp, "--disable-usage-stats",
               "--min-worker-port", str(low), "--max-worker-port", str(low + 39), *ports,
               "--block"]  # fmt: skip
        self.log = log
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def wait_started(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while "Ray runtime started" not in self.log.read_text():
            assert self.proc.poll() is None, self.log.read_text()[-3000:]
            assert time.monotonic() < deadline, self.log.read_text()[-3000:]
            time.sleep(1)

    def worked(self) -> int:
        """How many worker processes (actors' included) this node has run."""
        logs = Path(self.temp) / "session_latest" / "logs"
        return len(list(logs.glob("python-core-worker-*.log")))

    def stop(self) -> None:
        for sig, wait in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, sig)  # the session this node was started in
            except ProcessLookupError:
                break
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
        # what the node left in its group after ray start itself exited
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        shutil.rmtree(self.temp, ignore_errors=True)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A head and a joining node, token authentication on; (address, nodes' env, nodes)."""
    root = tmp_path_factory.mktemp("cluster")
    home = root / "home"  # no ~/.ray/auth_token of this machine's other clusters
    home.mkdir()
    token = root / "token"
    token.write_text(secrets.token_hex(32))
    token.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(HOME=str(home), RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token))
    env["MUJOCO_GL"] = os.environ.get("MUJOCO_GL", "egl")
    gcs = free_port()
    nodes = []
    try:
        head = Node(["--head", "--port", str(gcs), "--include-dashboard", "false"], env,
                    root / "head.log")  # fmt: skip
        nodes.append(head)
        head.wait_started()
        address = f"127.0.0.1:{gcs}"
        joined = Node(["--address", address], env, root / "node.log")
        nodes.append(joined)
        joined.wait_started()
        _wait_for_nodes(address, env, 2)
        yield address, env, nodes
    finally:
        for node in reversed(nodes):
            node.stop()


def _wait_for_nodes(address: str, env: dict[str, str], n: int, timeout: float = 120) -> None:
    script = ("import ray, sys; ray.init(address=sys.argv[1], logging_level='ERROR');"
              "print(sum(x['Alive'] for x in ray.nodes()))")  # fmt: skip
    deadline = time.monotonic() + timeout
    while True:
        done = subprocess.run([sys.executable, "-c", script, address], env=env,
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        if done.returncode == 0 and done.stdout.strip().splitlines()[-1] == str(n):
            return
        assert time.monotonic() < deadline, done.stderr[-2000:]
        time.sleep(2)


@pytest.fixture(scope="module")
def local(cluster, tmp_path_factory):
    """The same generation on this machine alone, and the environment without Ray's."""
    _, env, _ = cluster
    root = tmp_path_factory.mktemp("local")
    plain = {k: v for k, v in env.items() if not k.startswith("RAY_")}
    done = streamspatial(["sim", "generate", "--out", "local", *GENERATE], plain, root)
    assert done.returncode == 0, done.stderr[-3000:]
    return root / "local", plain


def streamspatial(args: list[object], env: dict[str, str], cwd: Path):
    return subprocess.run(
        [str(BIN / "streamspatial"), *map(str, args)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=900,
    )  # fmt: skip


def test_two_nodes_with_token_auth_generate_the_local_bytes_and_evaluate(cluster, local, tmp_path):
    address, env, (_head, joined) = cluster
    bench, local_env = local
    before = joined.worked()
    there = streamspatial(["sim", "generate", "--out", "ray", "--executor", "ray",
                           "--address", address, *GENERATE], env, tmp_path)  # fmt: skip
    assert there.returncode == 0, there.stderr[-3000:]
    theirs, ours = files_of(tmp_path / "ray"), files_of(bench)
    assert sorted(theirs) == sorted(ours)
    assert [name for name in ours if theirs[name] != ours[name]] == []  # videos included
    assert joined.worked() > before  # walks were rendered on the joining node too
    # an evaluation across both nodes, relative paths as a user types them
    run = ["run", "--data", "ray/s3.jsonl", "--videos", "ray/videos", "--model", "random",
           "--no-progress"]  # fmt: skip
    on_ray = streamspatial([*run, "--out", "r-ray", "--executor", "ray", "--address", address,
                            "--workers", "2"], env, tmp_path)  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr[-3000:]
    on_here = streamspatial([*run, "--out", "r-local"], local_env, tmp_path)
    assert on_here.returncode == 0, on_here.stderr[-3000:]

    def answers(folder: str) -> list[tuple]:
        rows = [json.loads(line) for line in (tmp_path / folder / "predictions.jsonl").open()]
        return sorted((r["item_id"], r["query_index"], r["answer"]) for r in rows)

    assert answers("r-ray") == answers("r-local") and answers("r-ray")


@pytest.mark.parametrize("token", [None, "not-the-token"])
def test_a_driver_without_the_token_is_refused_in_one_line_before_any_folder(
    cluster, local, tmp_path, token
):
    address, _, _ = cluster
    bench, plain = local
    driver = dict(plain)
    if token is not None:  # token mode, a wrong token
        driver.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    done = streamspatial(["sim", "generate", "--out", "out", "--executor", "ray",
                          "--address", address, *GENERATE], driver, tmp_path)  # fmt: skip
    err = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(err) == 1, done.stderr[-3000:]
    assert ("asks for token authentication" if token is None else "refused") in err[0]
    assert "RAY_AUTH_MODE=token" in err[0] and "RAY_AUTH_TOKEN" in err[0]
    assert token is None or token not in done.stderr + done.stdout  # never a secret
    assert not (tmp_path / "out").exists()
    # an evaluation: the same line, and no run folder
    run = streamspatial(["run", "--data", bench / "s3.jsonl", "--videos", bench / "videos",
                         "--model", "random", "--out", "r", "--no-progress", "--executor", "ray",
                         "--address", address], driver, tmp_path)  # fmt: skip
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(err) == 1 and "token" in err[0], run.stderr[-3000:]
    assert not (tmp_path / "r").exists()
