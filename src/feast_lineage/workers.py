"""``serve_lineage --workers N``: gunicorn's arbiter over N forked uvicorn workers.

gunicorn takes the socket the server bound (``fd://N``: the port answered
not-ready on it while the schema was upgraded, :mod:`feast_lineage.listener`)
and forks the workers (``uvicorn_worker.UvicornWorker`` with the lineage
server's uvicorn settings); it replaces a worker that dies,
stops them all gracefully on SIGTERM or SIGINT (each finishes its requests
and commits what its writer holds; after :data:`STOP_TIMEOUT_S` the rest are
killed) and halts when a worker fails as it starts, instead of restarting it
in a loop.

Each worker builds its own app (engine, writer thread) from the factory after
the fork; the arbiter loads nothing but modules, which the workers share with
it (see :func:`feast_lineage.server.serve`). On top of gunicorn: a worker
takes a slot of the shared :class:`~feast_lineage.balance.WorkerLoad`, is
named ``lineage-worker`` for ps and top, and ends when the arbiter is killed
(which cannot stop it then). The number of workers stays ``N``: the load has
N slots, so the signals with which gunicorn changes it (HUP, TTIN, TTOU) are
ignored.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import ssl
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from gunicorn.errors import HaltServer
from uvicorn_worker import UvicornWorker

from feast_lineage import metrics_processes
from feast_lineage.balance import WorkerLoad

# How long stopping workers may take before they are killed.
STOP_TIMEOUT_S = 30
# What ps and top show for a worker process (at most 15 bytes).
WORKER_NAME = "lineage-worker"


class LineageWorker(UvicornWorker):  # type: ignore[misc]
    """uvicorn in a worker process, with the settings the lineage server runs uvicorn with."""

    def __init__(
        self,
        age: int,
        ppid: int,
        sockets: list[Any],
        app: Workers,
        timeout: float,
        cfg: Any,
        log: Any,
    ) -> None:
        # UvicornWorker builds uvicorn's Config from gunicorn's settings, then these.
        self.CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, **app.uvicorn_options}
        self.worker_load: WorkerLoad = app.worker_load
        self.slot = 0  # set by _claim_slot before the fork
        super().__init__(age, ppid, sockets, app, timeout, cfg, log)

    def init_process(self) -> None:
        _exit_with_arbiter(self.ppid)
        _name_process(WORKER_NAME)
        self.worker_load.become(self.slot)
        super().init_process()


def _forget_metrics(arbiter: Arbiter, worker: LineageWorker) -> None:
    """A worker exited: drop its gauges from /metrics (its counters stay)."""
    metrics_processes.worker_exited(worker.pid)


def _claim_slot(arbiter: Arbiter, worker: LineageWorker) -> None:
    """gunicorn's pre_fork hook: the new worker takes a slot no live worker holds."""
    held = {other.slot for other in arbiter.WORKERS.values()}
    worker.slot = min(set(range(worker.worker_load.slots)) - held)


class _Arbiter(Arbiter):  # type: ignore[misc]
    def handle_int(self) -> None:
        """SIGINT (Ctrl-C) stops the workers gracefully as SIGTERM does; a second one, quickly."""
        raise StopIteration

    def _fixed(self, signame: str) -> None:
        self.log.warning("SIG%s ignored: serve_lineage runs exactly --workers workers", signame)

    def handle_hup(self) -> None:
        self._fixed("HUP")

    def handle_ttin(self) -> None:
        self._fixed("TTIN")

    def handle_ttou(self) -> None:
        self._fixed("TTOU")


class Workers(BaseApplication):  # type: ignore[misc]
    """gunicorn's application API: its settings, and the app each worker builds."""

    def __init__(
        self,
        factory: Callable[[], Any],
        load: WorkerLoad,
        *,
        bind: str,
        log_level: str,
        tls_key_path: str,
        tls_cert_path: str,
        uvicorn_options: dict[str, Any],
    ) -> None:
        self.factory = factory
        self.worker_load = load
        self.settings: dict[str, Any] = {
            "bind": [bind],
            "workers": load.slots,
            "worker_class": LineageWorker,
            "preload_app": False,  # each worker builds its app after the fork
            "pre_fork": _claim_slot,
            "child_exit": _forget_metrics,
            "loglevel": log_level.lower(),
            "graceful_timeout": STOP_TIMEOUT_S,
            "keepalive": 5,  # seconds, as uvicorn alone
            "control_socket_disable": True,  # no gunicornc socket in $XDG_RUNTIME_DIR or ~
            "keyfile": tls_key_path or None,
            "certfile": tls_cert_path or None,
        }
        # Else gunicorn's default TLS protocol (deprecated in Python) reaches uvicorn.
        self.uvicorn_options = {**uvicorn_options, "ssl_version": ssl.PROTOCOL_TLS_SERVER}
        super().__init__()

    def load_config(self) -> None:
        for name, value in self.settings.items():
            self.cfg.set(name, value)

    def load(self) -> Any:
        """The app, built in each worker process after the fork."""
        return self.factory()

    def run(self) -> bool:
        """Serve until SIGTERM or SIGINT; False if it stopped because a worker failed to start."""
        arbiter = os.getpid()
        manager = _Arbiter(self)
        try:
            try:
                manager.run()
            except HaltServer as halt:
                # A worker that fails to boot halts the server from the SIGCHLD
                # handler, which may fire before the arbiter's own loop catches it.
                manager.halt(reason=halt.reason, exit_status=halt.exit_status)
        except SystemExit as stop:  # how gunicorn's arbiter always ends
            if os.getpid() != arbiter:
                raise  # a worker process ending: its status is for the arbiter
            if stop.code in (Arbiter.WORKER_BOOT_ERROR, Arbiter.APP_LOAD_ERROR):
                return False
            if stop.code not in (0, None):
                raise
        return True


_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15


def _name_process(name: str) -> None:
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NAME, name.encode(), 0, 0, 0)


def _exit_with_arbiter(arbiter: int) -> None:
    """Have the kernel send SIGTERM to this worker when the arbiter dies.

    Without it, the workers of an arbiter killed with SIGKILL would keep the
    port and the store busy. (Linux; elsewhere workers outlive it.)
    """
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != arbiter:  # it died before prctl took effect
        os._exit(1)
