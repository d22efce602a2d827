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
    except (OSError, OverflowError) as err:  # OverflowError: a port past 65535
        sock.close()
        reason = getattr(err, "strerror", None) or err
        raise ConfigError(
            "--host/--port",
            f"cannot listen on {host}:{port} ({reason})",
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

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        await super().serve(sockets)
        # Stopped while it started (a migration that fails at once): uvicorn then returns
        # before its shutdown, with the servers it opened still open, and closing the loop
        # over them warns of an unclosed resource (a traceback on stderr). Close them.
        for server in self.servers:
            server.close()


_THREAD = "lineage-upgrading"


class _QuietInterim(logging.Filter):
    """Drops uvicorn's INFO lines from the interim server's thread.

    Its "Started server process" and "Shutting down" would read as the
    server's own start and stop; its warnings pass.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or record.threadName != _THREAD


class Interim:
    """The interim server's thread; :meth:`stop` ends it (once, from any thread)."""

    def __init__(self, server: _InterimServer, sock: socket.socket) -> None:
        self._server = server
        self._duplicate = sock.dup()
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [self._duplicate]}, name=_THREAD, daemon=True
        )
        self._stopped = threading.Lock()
        self._quiet = _QuietInterim()

    def start(self) -> None:
        logging.getLogger("uvicorn.error").addFilter(self._quiet)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting, answer what was accepted, end the thread; ``sock`` listens on."""
        if not self._stopped.acquire(blocking=False):
            return  # stopped already
        self._server.should_exit = True
        self._thread.join(timeout=HANDOVER_S + 15)
        self._duplicate.close()
        if self._thread.is_alive():
            log.warning("the server answering during the upgrade did not stop in time")
        else:
            logging.getLogger("uvicorn.error").removeFilter(self._quiet)


@contextmanager
def answering_while_upgrading(
    sock: socket.socket,
    progress: MigrationProgress,
    *,
    database: str,
    uvicorn_options: dict[str, Any],
    tls_key_path: str = "",
    tls_cert_path: str = "",
) -> Iterator[Interim]:
    """Serve :class:`UpgradingApp` on ``sock`` from a thread until stopped or the block ends.

    The thread serves a duplicate of ``sock``: stopping it closes the
    duplicate, and ``sock`` itself listens on, for the real server. The
    caller may stop it earlier, from any thread (:meth:`Interim.stop`): the
    one-process server does so once its app has started.
    """
    config = uvicorn.Config(
        UpgradingApp(progress, database),
        lifespan="off",
        ws="none",
        log_config=None,  # nor log levels: the real server's uvicorn sets them
        log_level=None,
        ssl_keyfile=tls_key_path or None,
        ssl_certfile=tls_cert_path or None,
        **uvicorn_options,
    )
    interim = Interim(_InterimServer(config), sock)
    interim.start()
    try:
        yield interim
    finally:
        interim.stop()
