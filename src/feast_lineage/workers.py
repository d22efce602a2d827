"""``serve_lineage --workers N``: gunicorn's arbiter over N forked uvicorn workers.

gunicorn binds the socket, forks the workers (``uvicorn_worker.UvicornWorker``,
with the lineage server's uvicorn settings), replaces a worker that dies,
stops them all gracefully on SIGTERM or SIGINT (each finishes its requests
and commits what its writer holds) and halts with an error when a worker
fails as it starts, instead of restarting it in a loop.

Each worker builds its own app (engine, writer thread) from the factory
after the fork: nothing is loaded in the arbiter but modules, which the
workers then share (fork, ``gc.freeze()`` first; see :mod:`feast_lineage.server`).
On top of gunicorn: workers are named ``lineage-worker`` for ps and top, and
end when the arbiter is killed (it cannot stop them itself then).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter
from uvicorn_worker import UvicornWorker

from feast_lineage.supervisor import (
    WORKER_NAME,
    WorkerLoad,
    WorkerStartupError,
    _exit_with_parent,
    _name_process,
)

# How long stopping workers may take before they are killed.
STOP_TIMEOUT_S = 30


class LineageWorker(UvicornWorker):  # type: ignore[misc]
    """uvicorn in a worker process, with the settings the lineage server runs uvicorn with."""

    app: Workers

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
        # UvicornWorker builds uvicorn's Config from these, after gunicorn's settings.
        self.CONFIG_KWARGS = {**UvicornWorker.CONFIG_KWARGS, **app.uvicorn_options}
        self.slot = 0
        super().__init__(age, ppid, sockets, app, timeout, cfg, log)

    def init_process(self) -> None:
        _exit_with_parent(self.ppid)
        _name_process(WORKER_NAME)
        if self.app.worker_load is not None:
            self.app.worker_load.become(self.slot)
        super().init_process()


class _Arbiter(Arbiter):  # type: ignore[misc]
    def handle_int(self) -> None:
        """SIGINT (Ctrl-C) stops the workers gracefully, as SIGTERM does; a second one quickly."""
        raise StopIteration


def _claim_slot(arbiter: Arbiter, worker: LineageWorker) -> None:
    """gunicorn's pre_fork hook: the new worker takes a slot no live worker holds."""
    held = {other.slot for other in arbiter.WORKERS.values()}
    worker.slot = min(set(range(arbiter.num_workers)) - held)


class Workers(BaseApplication):  # type: ignore[misc]
    """gunicorn's application API: its settings, and the app each worker builds."""

    def __init__(
        self,
        factory: Callable[[], Any],
        *,
        bind: str,
        workers: int,
        log_level: str,
        tls_key_path: str,
        tls_cert_path: str,
        uvicorn_options: dict[str, Any],
        worker_load: WorkerLoad | None,
    ) -> None:
        self.factory = factory
        self.settings: dict[str, Any] = {
            "bind": [bind],
            "workers": workers,
            "worker_class": LineageWorker,
            "preload_app": False,  # each worker builds its app after the fork
            "loglevel": log_level.lower(),
            "graceful_timeout": STOP_TIMEOUT_S,
            "keepalive": 5,  # seconds, uvicorn's own default
            "control_socket_disable": True,  # no gunicornc socket in $XDG_RUNTIME_DIR or ~
            "keyfile": tls_key_path or None,
            "certfile": tls_cert_path or None,
            "pre_fork": _claim_slot,
        }
        # gunicorn would pass its own (deprecated) default TLS protocol on.
        self.uvicorn_options = {**uvicorn_options, "ssl_version": ssl.PROTOCOL_TLS_SERVER}
        self.worker_load = worker_load
        super().__init__()

    def load_config(self) -> None:
        for name, value in self.settings.items():
            self.cfg.set(name, value)

    def load(self) -> Any:
        """Called in each worker process after the fork."""
        return self.factory()

    def run(self) -> None:
        """Serve until SIGTERM or SIGINT; raise :class:`WorkerStartupError` on a failed start."""
        arbiter = os.getpid()
        try:
            _Arbiter(self).run()
        except SystemExit as stop:
            if os.getpid() != arbiter:
                raise  # a worker process leaving: its status is for the arbiter
            if stop.code in (Arbiter.WORKER_BOOT_ERROR, Arbiter.APP_LOAD_ERROR):
                raise WorkerStartupError(
                    "a worker process failed to start; its log above says why"
                ) from None
            if stop.code not in (0, None):
                raise
