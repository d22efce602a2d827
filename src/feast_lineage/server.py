"""Running the ASGI app with uvicorn: TLS, and one or several worker processes.

With ``workers`` > 1, :class:`~feast_lineage.supervisor.Supervisor` binds the
socket once and forks that many worker processes, each of which builds its
own app, engine and writer thread from ``factory``. Several workers parse and
derive events on several cores; their write transactions take turns
(:mod:`feast_lineage.consumer.store.transactions`).
"""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Callable
from functools import partial
from typing import Any

import uvicorn
from fastapi import FastAPI

from feast_lineage import metrics_processes
from feast_lineage.config import ConfigError
from feast_lineage.supervisor import BalanceConnections, Supervisor, WorkerLoad

AppFactory = Callable[[], FastAPI]


def tune_gc() -> None:
    """Collect less often: ingest allocates many small, short-lived objects.

    The default young-generation threshold (700) makes the collector rescan
    parsed JSON thousands of times a second. Objects alive now (modules, the
    app) are frozen out of collection for good.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def _worker_app(factory: AppFactory, load: WorkerLoad | None) -> Any:
    """Build the app in a worker process (uvicorn calls this there)."""
    app: Any = factory()
    if load is not None:
        app = BalanceConnections(app, load)
    tune_gc()
    return app


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
) -> None:
    """Serve the app ``factory`` builds until interrupted.

    ``root_path`` is the prefix behind a proxy. Raises
    :class:`~feast_lineage.supervisor.WorkerStartupError` when a worker
    process fails to start.
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
    load = WorkerLoad(workers) if workers > 1 else None
    config = uvicorn.Config(
        partial(_worker_app, factory, load),
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level=log_level.lower(),
        ssl_keyfile=tls_key_path or None,
        ssl_certfile=tls_cert_path or None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=10,
        root_path=root_path,
    )
    scheme = "https" if tls_key_path else "http"
    logging.getLogger(__name__).info(
        "lineage server on %s://%s:%d (%d worker process%s)",
        scheme,
        host,
        port,
        workers,
        "" if workers == 1 else "es",
    )
    if workers == 1:
        uvicorn.Server(config).run()
        return
    metrics_dir = metrics_processes.prepare()  # before the fork: the workers' metric files
    _preload()
    tune_gc()  # frozen objects stay shared with the workers (no copy on write)
    sock = config.bind_socket()
    try:
        assert load is not None
        Supervisor(config, sock, workers, load).run()
    finally:
        sock.close()
        metrics_processes.finish(metrics_dir)


def _preload() -> None:
    """Import what every worker loads, once, before forking them."""
    import importlib

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
