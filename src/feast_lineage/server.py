"""Running the ASGI app with uvicorn: TLS, and one or several worker processes.

The port is bound before anything else, and answers not-ready while the
store's schema is upgraded (:mod:`feast_lineage.listener`); then the app is
served on that socket. With ``workers`` > 1, gunicorn's arbiter
(:mod:`feast_lineage.workers`) takes the socket and forks that many uvicorn
worker processes, each of which builds its own app, engine and writer thread
from ``factory``, and keeps keep-alive connections off a busy worker
(:mod:`feast_lineage.balance`). Several workers parse and derive events on
several cores; their write transactions take turns
(:mod:`feast_lineage.consumer.store.engine.transactions`).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
import logging
import os
import socket
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from functools import partial
from typing import Any

import uvicorn
from fastapi import FastAPI

from feast_lineage import glibc, metrics_processes
from feast_lineage.balance import BalanceConnections, WorkerLoad
from feast_lineage.config import ConfigError
from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress
from feast_lineage.header_timeout import with_header_timeout
from feast_lineage.listener import answering_while_upgrading, listen

AppFactory = Callable[[], FastAPI]


class WorkerStartupError(Exception):
    """A worker process exited as it started (its log says why)."""


def tune_gc() -> None:
    """Collect less often: ingest allocates many small, short-lived objects.

    The default young-generation threshold (700) makes the collector rescan
    parsed JSON thousands of times a second. Objects alive now (modules, the
    app) are frozen out of collection for good.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


# glibc raises its mmap threshold to the size of the largest block freed (up
# to 32 MiB), and then keeps up to twice that much freed memory in each arena:
# after one 30 MB request body, later ones come from the heap and some 60 MB
# per thread stays resident for good. A fixed threshold turns that off:
# blocks of 1 MiB or more (request bodies, their inflated and parsed text)
# are mapped on their own and go back to the system as soon as they are freed.
_M_MMAP_THRESHOLD = -3  # from glibc's malloc.h
LARGE_BLOCK_BYTES = 1024 * 1024


def tune_malloc() -> bool:
    """Give large freed blocks back to the system at once (glibc only); True when set."""
    c = glibc.libc()
    if c is None:
        return False
    mallopt = c.mallopt
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    return bool(mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES))


def _worker_app(factory: AppFactory, load: WorkerLoad | None) -> Any:
    """Build the app in the process that serves it (after the fork, with workers)."""
    app: Any = factory()
    if load is not None:
        app = BalanceConnections(app, load)
    tune_gc()
    tune_malloc()
    return app


@dataclass(frozen=True)
class SchemaUpgrade:
    """What brings the store's schema up to date before the app is served.

    ``run`` raises to stop the server (a :class:`ConfigError` prints as one
    line); ``database`` is the backend's name, for ``/healthz`` meanwhile.
    """

    run: Callable[[MigrationProgress], None]
    database: str


def serve(
    factory: AppFactory,
    *,
    host: str,
    port: int,
    workers: int = 1,
    tls_key_path: str = "",
    tls_cert_path: str = "",
    log_level: str = "info",
    root_path: str = "",
    header_timeout: float = 30,
    upgrade: SchemaUpgrade | None = None,
    preload: tuple[str, ...] = (),
    listening: Callable[[], None] | None = None,
) -> None:
    """Serve the app ``factory`` builds until interrupted.

    The port is bound first; with ``upgrade``, the schema is brought up to
    date next, while the socket answers not-ready
    (:mod:`feast_lineage.listener`), and then the app is served on the same
    socket. ``root_path`` is the prefix behind a proxy; a connection whose
    request headers take more than ``header_timeout`` seconds is closed
    (:mod:`feast_lineage.header_timeout`). With several workers, the modules
    named in ``preload`` are imported once before they are forked (each app
    imports them as it starts: the workers then share them, and none pays
    for the import). ``listening`` is called once the port is bound (a
    server's address is announced then, never before a port that is taken
    fails). Raises :class:`WorkerStartupError` when a worker process fails
    to start.
    """
    if bool(tls_key_path) != bool(tls_cert_path):
        raise ConfigError(
            "--key/--cert", "only one of the pair was given", "pass both --key and --cert for TLS"
        )
    if workers < 1:
        raise ConfigError("--workers", f"must be at least 1, got {workers}", "pass --workers 1")
    if workers > 1 and not hasattr(os, "fork"):
        raise ConfigError(
            "--workers", "several workers need fork(), which this system lacks", "pass --workers 1"
        )
    uvicorn_options: dict[str, Any] = {
        "access_log": False,
        "server_header": False,
        "timeout_graceful_shutdown": 10,
        "root_path": root_path,
        "http": with_header_timeout(header_timeout),
    }
    tls = {"tls_key_path": tls_key_path, "tls_cert_path": tls_cert_path}
    sock = listen(host, port)
    logging.getLogger(__name__).info(
        "lineage server on %s://%s:%d (%d worker process%s)",
        "https" if tls_key_path else "http",
        host,
        port,
        workers,
        "" if workers == 1 else "es",
    )
    if listening is not None:
        listening()
    try:
        with ExitStack() as interim:
            handed_over: Callable[[], None] = _nothing
            if upgrade is not None:
                progress = MigrationProgress()
                answering = interim.enter_context(
                    answering_while_upgrading(
                        sock,
                        progress,
                        database=upgrade.database,
                        uvicorn_options=uvicorn_options,
                        **tls,
                    )
                )
                upgrade.run(progress)
                handed_over = answering.stop
            if workers == 1:
                # The interim answers until the app has started (the Feast registry open).
                _serve_one(factory, sock, log_level, uvicorn_options, handed_over, **tls)
            else:
                handed_over()  # before the fork: no worker inherits the interim's thread
                _serve_workers(
                    factory, sock, workers, log_level, uvicorn_options, preload=preload, **tls
                )
    finally:
        sock.close()


def _nothing() -> None:
    return None


class _HandOver(uvicorn.Server):
    """uvicorn that calls ``started`` once its app has started, before it accepts connections."""

    def __init__(self, config: uvicorn.Config, started: Callable[[], None]) -> None:
        super().__init__(config)
        self._started = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        lifespan_startup = self.lifespan.startup

        async def then_hand_over() -> None:
            await lifespan_startup()
            await asyncio.to_thread(self._started)

        self.lifespan.startup = then_hand_over
        await super().startup(sockets)


def _serve_one(
    factory: AppFactory,
    sock: socket.socket,
    log_level: str,
    uvicorn_options: dict[str, Any],
    started: Callable[[], None],
    *,
    tls_key_path: str,
    tls_cert_path: str,
) -> None:
    """uvicorn in this process, on the listening ``sock``; ``started`` once the app has."""
    config = uvicorn.Config(
        partial(_worker_app, factory, None),
        factory=True,
        log_level=log_level.lower(),
        ssl_keyfile=tls_key_path or None,
        ssl_certfile=tls_cert_path or None,
        **uvicorn_options,
    )
    _HandOver(config, started).run(sockets=[sock])


def _serve_workers(
    factory: AppFactory,
    sock: socket.socket,
    workers: int,
    log_level: str,
    uvicorn_options: dict[str, Any],
    *,
    preload: tuple[str, ...],
    tls_key_path: str,
    tls_cert_path: str,
) -> None:
    """gunicorn's arbiter over ``workers`` forked uvicorn workers, on the listening ``sock``."""
    from feast_lineage.workers import Workers  # gunicorn: only where fork() is

    metrics_dir = metrics_processes.prepare()  # before the fork: the workers' metric files
    _preload(preload)
    tune_gc()  # frozen objects stay shared with the workers (no copy on write)
    load = WorkerLoad(workers)
    try:
        served = Workers(
            partial(_worker_app, factory, load),
            load,
            # gunicorn serves the socket bound here, on a descriptor of its own (it closes it).
            bind=f"fd://{os.dup(sock.fileno())}",
            log_level=log_level,
            tls_key_path=tls_key_path,
            tls_cert_path=tls_cert_path,
            uvicorn_options=uvicorn_options,
        ).run()
    finally:
        metrics_processes.finish(metrics_dir)
    if not served:
        raise WorkerStartupError("a worker process failed to start; its log above says why")


def _preload(modules: tuple[str, ...]) -> None:
    """Import what every worker loads, once, before forking them.

    ``modules`` are the app's (Feast, which each worker's app imports as it
    opens the registry: seconds of CPU a worker then does not spend).
    """
    import importlib
    import time

    for module in (
        "uvloop",
        "httptools",
        "uvicorn.protocols.http.httptools_impl",
        "uvicorn.lifespan.on",
    ):
        try:
            importlib.import_module(module)
        except ImportError:
            continue
    for module in modules:
        started = time.monotonic()
        try:
            importlib.import_module(module)
        except ImportError:
            continue  # the worker that needs it reports it
        logging.getLogger(__name__).info(
            "%s imported before forking the workers (%.1f s)", module, time.monotonic() - started
        )
