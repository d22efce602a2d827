"""The request's path as the client sent it: still percent-encoded, so ``%2F`` stays in a name."""

from __future__ import annotations

from starlette.types import Scope


def sent_path(scope: Scope) -> str | None:
    """The path as sent, without the query; None when the server gives no raw path."""
    raw = scope.get("raw_path")
    if isinstance(raw, bytes | bytearray):
        return bytes(raw).decode("latin-1").split("?", 1)[0]
    return None
