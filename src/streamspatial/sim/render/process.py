"""Rendering in a child process, so the GL driver never shares a process with torch.

Why: headless MuJoCo renders through Mesa (EGL or OSMesa with llvmpipe), and creating the GL
context loads Mesa's driver *with its own LLVM* (Debian's ``libLLVM-15.so``) into the global
symbol scope.  Triton's ``libtriton.so`` carries a different, statically linked LLVM whose
symbols are exported unversioned; when it is loaded afterwards (``import triton``, which CUDA
builds of torch and transformers do lazily), the dynamic linker binds thousands of its LLVM
symbols to Mesa's copy, and its static initialisers crash on the mismatched data structures
(a segmentation fault in ``llvm::DebugCounter`` during ``dlopen``).  Import order only hides
it (triton first works, triton after the first frame does not), and the order is not ours to
choose in a user's process.  So every frame the project renders is drawn in a separate
interpreter that imports nothing but MuJoCo, NumPy and the simulator: the process that
evaluates, trains or imports torch never maps a GL driver at all.

:class:`RenderProcess` has the interface of
:class:`~streamspatial.sim.render.renderer.HouseRenderer` (``render(pose)``, ``intrinsics``,
``close()``, a context manager) plus :meth:`render_many`, which keeps a few requests in flight
so the child draws the next frame while the caller encodes this one.  Frames travel over a pipe
as raw array bytes (pickle protocol 5, out-of-band buffers): about 3 MB a frame at 640×480, a
few milliseconds against tens for the GL passes.
"""

from __future__ import annotations

import atexit
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from typing import IO, Any, NoReturn

# The caller loads the renderer as the child does (importing MuJoCo creates no GL context):
# without the [sim] extra, opening a render process fails here, in the caller, with one line
# naming the extra, and a generation fails before it writes anything.
import streamspatial.sim.render.renderer  # noqa: F401
from streamspatial.core.errors import StreamspatialError
from streamspatial.scene.camera import DEFAULT_VFOV
from streamspatial.scene.schedule import Schedule
from streamspatial.scene.types import CameraPose, House, Intrinsics

_HEADER = struct.Struct("<QI")  # pickle length, number of out-of-band buffers
_LEN = struct.Struct("<Q")


def send(stream: IO[bytes], obj: Any) -> None:
    """Write one message: a pickle and its out-of-band buffers (NumPy arrays, uncopied)."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    stream.write(_HEADER.pack(len(data), len(raws)))
    for raw in raws:
        stream.write(_LEN.pack(raw.nbytes))
    stream.write(data)
    for raw in raws:
        stream.write(raw)
    stream.flush()


def _read_exact(stream: IO[bytes], n: int) -> bytearray:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = stream.readinto(view[got:])  # type: ignore[attr-defined]
        if not k:
            raise EOFError
        got += k
    return buf


def recv(stream: IO[bytes]) -> Any:
    """Read one message written by :func:`send`; ``EOFError`` when the other side is gone."""
    size, count = _HEADER.unpack(_read_exact(stream, _HEADER.size))
    lengths = [_LEN.unpack(_read_exact(stream, _LEN.size))[0] for _ in range(count)]
    data = _read_exact(stream, size)
    buffers = [_read_exact(stream, n) for n in lengths]
    return pickle.loads(data, buffers=buffers)


class _Gone(RuntimeError):
    """The child interpreter exited (crashed, killed); its exit status and last words."""


class _Worker:
    """One child interpreter; idle ones are kept for the next renderer (startup ≈ 0.3 s)."""

    IDLE_MAX = 2
    _idle: list[_Worker] = []  # noqa: RUF012 — process-wide pool, guarded by _lock
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 — closed in stop()
        env = dict(os.environ)
        env.setdefault("MUJOCO_GL", "egl")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "streamspatial.sim.render.process"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            env=env,
        )

    @classmethod
    def take(cls) -> _Worker:
        with cls._lock:
            while cls._idle:
                w = cls._idle.pop()
                if w.proc.poll() is None:
                    return w
                w.stop()
        return cls()

    def give_back(self) -> None:
        with self._lock:
            if len(self._idle) < self.IDLE_MAX and self.proc.poll() is None:
                self._idle.append(self)
                return
        self.stop()

    def stop(self) -> None:
        proc = self.proc
        try:
            if proc.poll() is None:
                send(proc.stdin, ("close",))  # type: ignore[arg-type]
                proc.stdin.close()  # type: ignore[union-attr]
                proc.wait(timeout=30)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        finally:
            for f in (proc.stdin, proc.stdout, self.log):
                if f is not None:
                    f.close()

    def failure(self) -> str:
        """Why the child is gone: its exit status and the last lines it wrote."""
        code = self.proc.wait()
        self.log.seek(0)
        tail = self.log.read().decode("utf-8", "replace").strip().splitlines()[-5:]
        self.stop()
        return f"the render process exited with status {code}" + (
            ": " + " | ".join(tail) if tail else ""
        )

    @classmethod
    def stop_idle(cls) -> None:
        with cls._lock:
            idle, cls._idle = cls._idle, []
        for w in idle:
            w.stop()


atexit.register(_Worker.stop_idle)


class RenderProcess:
    """A :class:`~streamspatial.sim.render.renderer.HouseRenderer` living in a child interpreter."""

    def __init__(
        self,
        house: House,
        size: tuple[int, int] = (320, 240),
        vfov_deg: float = DEFAULT_VFOV,
        schedule: Schedule | None = None,
    ):
        self.house = house
        self.size = size
        self.cpu_seconds = 0.0  # the child's CPU for this renderer, known once closed
        self._pending = 0
        self._worker: _Worker | None = _Worker.take()
        # a static renderer is opened exactly as before (no fourth argument)
        args = (house, tuple(size), vfov_deg) + (() if schedule is None else (schedule,))
        try:
            self.intrinsics: Intrinsics = self._call(("open", *args))
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ protocol

    def _send(self, msg: Any) -> None:
        w = self._alive()
        try:
            send(w.proc.stdin, msg)  # type: ignore[arg-type]
        except (BrokenPipeError, OSError):
            self._died()
        self._pending += 1

    def _receive(self) -> Any:
        w = self._alive()
        try:
            kind, *payload = recv(w.proc.stdout)  # type: ignore[arg-type]
        except EOFError:
            self._died()
        self._pending -= 1
        if kind == "error":  # the child is fine; the request was not
            user_error, message = payload
            raise (StreamspatialError if user_error else RuntimeError)(message)
        return payload[0]

    def _call(self, msg: Any) -> Any:
        self._send(msg)
        return self._receive()

    def _alive(self) -> _Worker:
        if self._worker is None:
            raise RuntimeError("renderer is closed")
        return self._worker

    def _died(self) -> NoReturn:
        w, self._worker = self._alive(), None
        raise _Gone(w.failure())

    # ------------------------------------------------------------------ public API

    def render(self, pose: CameraPose):  # -> RenderedFrame (not imported: it would load GL)
        """RGB, metric depth and instance ids of one view, as ``HouseRenderer.render``."""
        while self._pending:  # frames of an abandoned render_many are still on their way
            self._receive()
        return self._call(("render", pose))

    def render_many(self, poses: Iterable[CameraPose], ahead: int = 2) -> Iterator[Any]:
        """The frames of ``poses`` in order, the child working ``ahead`` frames in advance."""
        queue: deque[CameraPose] = deque()
        for pose in poses:
            self._send(("render", pose))
            queue.append(pose)
            if len(queue) > ahead:
                queue.popleft()
                yield self._receive()
        while queue:
            queue.popleft()
            yield self._receive()

    def close(self) -> None:
        """Release the GL context; the child stays up, idle, for the next renderer."""
        w = self._worker
        if w is None:
            return
        try:
            self._send(("release",))
            while self._pending:  # frames of an abandoned render_many, then the release
                try:
                    reply = self._receive()
                except _Gone:
                    raise
                except (StreamspatialError, RuntimeError):
                    continue
                if self._pending == 0 and isinstance(reply, float):
                    self.cpu_seconds = reply
        except _Gone:  # nothing to give back
            self._worker = None
            return
        self._worker = None
        w.give_back()

    def __enter__(self) -> RenderProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_worker", None) is not None:
            self.close()


class RenderProcesses:
    """Several :class:`RenderProcess` children drawing the frames of one walk in turn.

    Where a GPU draws the frames (EGL on a hardware device), one process keeps it far from
    busy: most of a frame's time is the process's own CPU (scene update, readback,
    visibility), so frames spread over one process per core render several times faster.
    Each frame is a function of its pose alone, so the frames are the same whichever child
    draws them; :meth:`render_many` yields them in order.
    """

    def __init__(
        self,
        house: House,
        size: tuple[int, int],
        vfov_deg: float = DEFAULT_VFOV,
        schedule: Schedule | None = None,
        processes: int = 2,
    ):
        self.parts: list[RenderProcess] = []
        try:
            for _ in range(max(1, processes)):
                self.parts.append(RenderProcess(house, size, vfov_deg, schedule))
        except BaseException:
            self.close()
            raise
        self.intrinsics = self.parts[0].intrinsics
        self.cpu_seconds = 0.0

    def render_many(self, poses: Iterable[CameraPose], ahead: int = 2) -> Iterator[Any]:
        """The frames of ``poses`` in order, frame i drawn by child i mod n, each child
        working ``ahead`` frames in advance."""
        n = len(self.parts)
        queue: deque[RenderProcess] = deque()
        for i, pose in enumerate(poses):
            part = self.parts[i % n]
            part._send(("render", pose))
            queue.append(part)
            if len(queue) > ahead * n:
                yield queue.popleft()._receive()
        while queue:
            yield queue.popleft()._receive()

    def close(self) -> None:
        for part in self.parts:
            part.close()
        self.cpu_seconds = sum(p.cpu_seconds for p in self.parts)

    def __enter__(self) -> RenderProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """The child's loop: open one renderer, then answer render requests until told to close."""
    from streamspatial.sim.render.renderer import HouseRenderer

    renderer = None
    opened_cpu = time.process_time()
    try:
        while True:
            try:
                kind, *args = recv(requests)
            except EOFError:  # the parent is gone
                return
            if kind == "close":
                return
            try:
                if kind in ("open", "release") and renderer is not None:
                    renderer.close()
                    renderer = None
                if kind == "release":  # with the CPU seconds this renderer cost here
                    send(replies, ("ok", time.process_time() - opened_cpu))
                elif kind == "open":
                    opened_cpu = time.process_time()
                    renderer = HouseRenderer(*args)
                    send(replies, ("ok", renderer.intrinsics))
                elif kind == "render":
                    assert renderer is not None, "render before open"
                    send(replies, ("ok", renderer.render(*args)))
                else:
                    raise ValueError(f"unknown request {kind!r}")
            except StreamspatialError as e:
                send(replies, ("error", True, str(e)))
            except Exception as e:
                send(replies, ("error", False, f"{type(e).__name__}: {e}"))
    finally:
        if renderer is not None:
            renderer.close()


def main() -> None:
    # The protocol gets its own descriptor; anything a library prints on stdout (Mesa
    # warnings) goes to stderr instead of corrupting it.
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _serve(sys.stdin.buffer, replies)


if __name__ == "__main__":
    main()
