"""The server's listening socket: bound once, answering before the store is ready.

:func:`listen` binds the port as the server starts, before the store's
schema is upgraded (which on a large store can take many minutes), so
probes never find the port closed. While the migrations run,
:func:`answering_while_upgrading` serves
:class:`~feast_lineage.consumer.upgrading.UpgradingApp` on that socket from a
thread (``/healthz`` 200, ``/readyz`` and everything else 503). Then the same
socket object goes to the real server: to uvicorn as an open socket, or to
gunicorn's arbiter as ``fd://N``, its documented way of serving a socket
bound elsewhere. Between the two, the socket never stops listening: a
connection that arrives meanwhile waits in the kernel's queue until a
worker accepts it.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import uvicorn

from feast_lineage.config import ConfigError
from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress
from feast_lineage.consumer.upgrading import UpgradingApp

log = logging.getLogger(__name__)

# Connections the kernel queues while no one accepts (uvicorn's and gunicorn's default).
BACKLOG = 2048
# How long the interim server waits, when it hands over, for the connections it
# accepted to get their answers.
HANDOVER_S = 5.0


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``; a :class:`ConfigError` when it cannot."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)
    except OSError as err:
        sock.close()
        raise ConfigError(
            "--host/--port",
            f"cannot listen on {host}:{port} ({err.strerror or err})",
            "stop the process that uses the port or pass another --port, and check --host",
        ) from None
    return sock


class _InterimServer(uvicorn.Server):
    """uvicorn, stopping so that no connection it accepted goes unanswered."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # Stop accepting first; a connection accepted a moment ago still gets
        # its request read and answered (each answer closes its connection)
        # before uvicorn closes whatever is left.
        for server in self.servers:
            server.close()
        await asyncio.sleep(0.05)  # sockets accepted a moment ago become connections
        for _ in range(int(HANDOVER_S / 0.01)):
            if not self.server_state.connections:
                break
            await asyncio.sleep(0.01)
        await super().shutdown(sockets)


@contextmanager
def answering_while_upgrading(
    sock: socket.socket,
    progress: MigrationProgress,
    *,
    database: str,
    uvicorn_options: dict[str, Any],
    tls_key_path: str = "",
    tls_cert_path: str = "",
) -> Iterator[None]:
    """Serve :class:`UpgradingApp` on ``sock`` from a thread until the block ends.

    The thread serves a duplicate of ``sock``: ending it closes the duplicate,
    and ``sock`` itself listens on, for the real server.
    """
    config = uvicorn.Config(
        UpgradingApp(progress, database),
        lifespan="off",
        ws="none",
        log_config=None,
        log_level="warning",
        ssl_keyfile=tls_key_path or None,
        ssl_certfile=tls_cert_path or None,
        **uvicorn_options,
    )
    server = _InterimServer(config)
    duplicate = sock.dup()
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [duplicate]}, name="lineage-upgrading", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=HANDOVER_S + 15)
        duplicate.close()
        if thread.is_alive():
            log.warning("the server answering during the upgrade did not stop in time")
