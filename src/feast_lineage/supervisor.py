"""Several uvicorn worker processes on one listening socket (pre-fork).

The supervisor binds the socket, then forks the workers; each builds its own
app (engine, writer thread) after the fork and accepts connections from the
shared socket. Forking (rather than spawning
fresh interpreters) shares the imported modules between the processes, so a
worker costs its own working memory and not another copy of Python, FastAPI
and SQLAlchemy. uvicorn's own supervisor spawns, hence this small one.

Connections are not spread evenly by the kernel: whichever worker is waiting
when a connection arrives accepts it, and an event loop accepts every
connection pending at once, so a few long-lived keep-alive connections (a
producer's HTTP session) can all end up on one worker while the others idle.
Each worker therefore publishes how many requests it has in flight
(:class:`WorkerLoad`, in memory shared by the workers), and
:class:`BalanceConnections` ends a keep-alive connection (``Connection:
close`` on its response) when its worker has two or more requests in flight
than the least busy one. The client reconnects, and a free worker, whose
event loop is not waiting for the GIL, accepts first.

The supervisor restarts a worker that dies, stops every worker on SIGINT or
SIGTERM (each shuts down gracefully, committing what it holds), and gives up
with an error when a worker fails as it starts, instead of restarting it in
a loop.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import MutableMapping
from types import FrameType
from typing import Any

import uvicorn

from feast_lineage import metrics_processes

log = logging.getLogger(__name__)

# How long stopping workers may take before they are killed.
STOP_TIMEOUT_S = 30.0
_STARTUP_FAILURE = 3
_HANDLED = (signal.SIGINT, signal.SIGTERM)


Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


class WorkerLoad:
    """Requests in flight per worker, in memory the forked workers share.

    Each worker writes only its own slot (from its event loop thread) and
    reads the others', so no lock is needed.
    """

    def __init__(self, workers: int) -> None:
        self._counts = multiprocessing.RawArray(ctypes.c_int, workers)
        self.slot = 0

    def become(self, slot: int) -> None:
        """Called in a worker process as it starts: it owns ``slot`` now."""
        self.slot = slot
        self._counts[slot] = 0

    def enter(self) -> None:
        self._counts[self.slot] += 1

    def leave(self) -> None:
        self._counts[self.slot] -= 1

    def excess(self) -> int:
        """How many more requests this worker has in flight than the least busy other."""
        counts = self._counts
        others = [counts[i] for i in range(len(counts)) if i != self.slot]
        return counts[self.slot] - min(others) if others else 0


class BalanceConnections:
    """ASGI middleware: hand connections of a busy worker back to the kernel."""

    def __init__(self, app: Any, load: WorkerLoad, *, threshold: int = 2) -> None:
        self.app = app
        self.load = load
        self.threshold = threshold

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        load = self.load

        async def send_balanced(message: Message) -> None:
            if message["type"] == "http.response.start" and load.excess() >= self.threshold:
                headers = [*message.get("headers", []), (b"connection", b"close")]
                message = {**message, "headers": headers}
            await send(message)

        load.enter()
        try:
            await self.app(scope, receive, send_balanced)
        finally:
            load.leave()


class WorkerStartupError(Exception):
    """A worker process exited as it started (its log says why)."""


class Supervisor:
    def __init__(
        self, config: uvicorn.Config, sock: socket.socket, workers: int, load: WorkerLoad
    ) -> None:
        self._config = config
        self._sock = sock
        self._workers = workers
        self._load = load
        self._children: dict[int, int] = {}  # pid -> slot
        self._stopping_since: float | None = None
        self._failed = False

    def run(self) -> None:
        """Serve until SIGINT or SIGTERM; raise :class:`WorkerStartupError` on a failed start."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in _HANDLED}
        try:
            for slot in range(self._workers):
                self._start_one(slot)
            log.info("supervisor %d started %d workers", os.getpid(), self._workers)
            while self._children:
                self._reap()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if self._failed:
            raise WorkerStartupError("a worker process failed to start; its log above says why")

    def _start_one(self, slot: int) -> None:
        parent = os.getpid()
        # Signals wait until the worker has its own handlers: the supervisor's
        # handler must never run in a worker (it would stop the others).
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, _HANDLED)
        pid = os.fork()
        if pid == 0:  # the worker
            # uvicorn installs its own handlers while serving; restore the
            # defaults so a signal it re-raises after a graceful shutdown
            # ends the process.
            for sig in _HANDLED:
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
            _exit_with_parent(parent)
            _name_process(WORKER_NAME)
            os._exit(self._serve_worker(slot))
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        self._children[pid] = slot

    def _serve_worker(self, slot: int) -> int:
        self._load.become(slot)
        server = uvicorn.Server(self._config)
        try:
            server.run(sockets=[self._sock])
        except BaseException:  # uvicorn exits with SystemExit when the app cannot load
            log.exception("lineage worker %d failed", os.getpid())
            return 1 if server.started else _STARTUP_FAILURE
        return 0 if server.started else _STARTUP_FAILURE

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.stop()

    def stop(self) -> None:
        if self._stopping_since is None:
            self._stopping_since = time.monotonic()
        for pid in self._children:
            _signal(pid, signal.SIGTERM)

    def _reap(self) -> None:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            if (
                self._stopping_since is not None
                and time.monotonic() - self._stopping_since > STOP_TIMEOUT_S
            ):
                for straggler in self._children:
                    _signal(straggler, signal.SIGKILL)
            time.sleep(0.1)
            return
        slot = self._children.pop(pid, None)
        metrics_processes.worker_exited(pid)
        if slot is None or self._stopping_since is not None:
            return
        code = os.waitstatus_to_exitcode(status)
        if code == _STARTUP_FAILURE:
            log.error("lineage worker %d exited (%s) as it started; stopping", pid, code)
            self._failed = True
            self.stop()
            return
        log.warning("lineage worker %d exited (%s); starting another", pid, code)
        self._start_one(slot)


_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
# What ps and top show for a worker process (at most 15 bytes).
WORKER_NAME = "lineage-worker"


def _name_process(name: str) -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NAME, name.encode(), 0, 0, 0)


def _exit_with_parent(parent: int) -> None:
    """Have the kernel send SIGTERM to this worker when the supervisor dies.

    Without it, workers of a supervisor killed with SIGKILL would keep the
    port and the store busy. (Linux; elsewhere workers outlive it.)
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # it has exited already
        os.kill(pid, sig)
