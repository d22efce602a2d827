"""Running an ASGI app with uvicorn, with or without TLS."""

from __future__ import annotations

import gc
import logging

import uvicorn
from fastapi import FastAPI

from feast_lineage.config import ConfigError


def serve(
    app: FastAPI,
    *,
    host: str,
    port: int,
    tls_key_path: str = "",
    tls_cert_path: str = "",
    log_level: str = "info",
    root_path: str = "",
) -> None:
    """Serve ``app`` until interrupted (``root_path``: the prefix behind a proxy)."""
    if bool(tls_key_path) != bool(tls_cert_path):
        raise ConfigError(
            "--key/--cert", "only one of the pair was given", "pass both --key and --cert for TLS"
        )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level.lower(),
        ssl_keyfile=tls_key_path or None,
        ssl_certfile=tls_cert_path or None,
        access_log=False,
        server_header=False,
        timeout_graceful_shutdown=10,
        root_path=root_path,
    )
    # Ingest allocates many small, short-lived objects (parsed JSON); the
    # default young-generation threshold (700) makes the collector rescan
    # them thousands of times a second. Objects alive now are frozen out of
    # collection for good.
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)
    scheme = "https" if tls_key_path else "http"
    logging.getLogger(__name__).info("lineage server on %s://%s:%d", scheme, host, port)
    uvicorn.Server(config).run()
