"""What a server answers while its store's schema is upgraded, before its app starts.

The server listens as soon as it starts (:mod:`feast_lineage.listener`) and,
until its app has started, answers with :class:`UpgradingApp`, a plain ASGI
app with no database behind it. While migrations run (or this process waits
for another one's), it says the schema is upgrading:

- ``/healthz``: 200, the process is alive (``"status": "upgrading"``);
- ``/readyz``: 503 ``schema_upgrading``, saying which migration runs (its
  revision, description, step and when it started), or that another process
  holds the migration lock and since when;
- any other path: 503 ``schema_upgrading`` with ``Retry-After``.

Otherwise (the schema being checked, or at head, while the app starts and
opens the Feast registry: seconds on every start) it says the server is
starting: ``"status": "starting"`` and 503 ``server_starting``.

Every answer has ``Connection: close``, so no connection outlives this app:
the next request finds the real workers on the same socket. A request's body
is read (and dropped) before the answer, so a client still sending one gets
the answer rather than a reset connection.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from datetime import UTC, datetime
from typing import Any

from feast_lineage import __version__
from feast_lineage.consumer.errors import error_body
from feast_lineage.consumer.store.engine.migration_progress import MigrationProgress, MigrationState

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CODE = "schema_upgrading"
# The code while nothing is migrated: the schema is checked, or at head and the app starts.
STARTING_CODE = "server_starting"
# Seconds a client is asked to wait before it tries again.
RETRY_AFTER_S = 5
# A body past this many bytes is not read to its end (the connection closes).
_DRAIN_BYTES = 16 * 1024 * 1024


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def describe(state: MigrationState) -> str:
    """One sentence on where the upgrade is, for people and logs."""
    if state.phase == "waiting":
        return (
            "another process is upgrading the lineage store's schema; this server has "
            f"waited for it since {_iso(state.phase_since)}"
        )
    if state.phase == "migrating" and state.current is not None:
        what = state.current.revision
        if state.current.description:
            what += f" ({state.current.description.rstrip('.')})"
        return (
            f"the lineage store's schema is being upgraded: migration {what}, "
            f"{state.step} of {state.steps}, running since {_iso(state.phase_since)}"
        )
    if state.phase == "done":
        return "the lineage store's schema is up to date; the server is starting"
    return f"the lineage store's schema is being checked since {_iso(state.phase_since)}"


def readiness_details(state: MigrationState) -> dict[str, Any]:
    """The upgrade's state as the one ``details`` entry of the ``/readyz`` error."""
    detail: dict[str, Any] = {
        "message": describe(state),
        "phase": state.phase,
        "upgrade_started_at": _iso(state.since),
        "phase_started_at": _iso(state.phase_since),
    }
    if state.current is not None:
        detail["migration"] = state.current.revision
        detail["description"] = state.current.description
        detail["step"] = state.step
        detail["steps"] = state.steps
    return detail


class UpgradingApp:
    """The ASGI app of a server whose store's schema is being upgraded."""

    def __init__(self, progress: MigrationProgress, database: str) -> None:
        self.progress = progress
        self.database = database

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        """The status and body for a request to ``path``."""
        state = self.progress.now()
        upgrading = state.phase in ("waiting", "migrating")
        if path == "/healthz":
            status = "upgrading" if upgrading else "starting"
            return 200, {"status": status, "version": __version__, "database": self.database}
        code = CODE if upgrading else STARTING_CODE
        message = describe(state) + "; retry later"
        if path == "/readyz":
            return 503, error_body(503, code, message, [readiness_details(state)])
        return 503, error_body(503, code, message + " (GET /readyz says how far it is)")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # no lifespan to run, no websockets
        await _drain(receive)
        status, body = self.answer(_app_path(scope))
        encoded = json.dumps(body).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(encoded)).encode()),
            (b"connection", b"close"),
            (b"cache-control", b"no-store"),
        ]
        if status == 503:
            headers.append((b"retry-after", str(RETRY_AFTER_S).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        body_sent = b"" if scope["method"] == "HEAD" else encoded
        await send({"type": "http.response.body", "body": body_sent})


def _app_path(scope: Scope) -> str:
    """The request's path below the root path it was served under."""
    path = str(scope.get("path", "/"))
    root = str(scope.get("root_path", "")).rstrip("/")
    if root and (path == root or path.startswith(root + "/")):
        path = path[len(root) :] or "/"
    return path


async def _drain(receive: Receive) -> None:
    read = 0
    while read <= _DRAIN_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return  # the client went away
        read += len(message.get("body", b""))
        if not message.get("more_body", False):
            return
