"""API key authentication, as the OpenLineage client's ``api_key`` auth sends it.

The key comes in ``X-API-Key`` or ``Authorization: Bearer <key>`` and is
compared in constant time. With no key configured, every request passes
(the spec's open mode; the server logs a warning at startup).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable

from starlette.requests import HTTPConnection

from feast_lineage.consumer.errors import Forbidden, Unauthorized

CHALLENGE = {"WWW-Authenticate": 'Bearer realm="feast-lineage"'}


def bearer_token(conn: HTTPConnection) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, if any."""
    auth = conn.headers.get("authorization")
    if not auth:
        return None
    scheme, _, value = auth.partition(" ")
    return value.strip() or None if scheme.lower() == "bearer" else None


def presented_key(conn: HTTPConnection) -> str | None:
    key = conn.headers.get("x-api-key")
    if key:
        return key.strip()
    return bearer_token(conn)


ReadKeyCheck = Callable[[str], bool]
"""Whether a key is one of the authorizer's read keys (compared in constant time)."""


def check_api_key(
    conn: HTTPConnection, expected: str | None, *, is_read_key: ReadKeyCheck | None = None
) -> None:
    """Raise :class:`Unauthorized` unless the request carries ``expected``.

    A read key (``is_read_key``) is a valid key that may not write: a
    :class:`Forbidden` ``read_key_cannot_write``, which says no more than
    that it is a read key.
    """
    if expected is None:
        return
    key = presented_key(conn)
    if key is None:
        raise Unauthorized(
            "an API key is required: send it as X-API-Key or Authorization: Bearer <key>",
            headers=CHALLENGE,
        )
    if hmac.compare_digest(key.encode(), expected.encode()):
        return
    if is_read_key is not None and is_read_key(key):
        raise Forbidden(
            "this key may read; writing (ingest, prune, reset) needs the consumer's api_key "
            "(openlineage.consumer.api_key)",
            code="read_key_cannot_write",
        )
    raise Unauthorized("the API key is not valid", code="invalid_api_key", headers=CHALLENGE)


def check_admin_key(
    conn: HTTPConnection,
    expected: str | None,
    *,
    reads_open: bool,
    is_read_key: ReadKeyCheck | None = None,
) -> None:
    """The API key that prune and reset need.

    With no key configured they are open, as the spec says, but only while
    reads are open too: under an authorizer that restricts reads, open admin
    endpoints would let anyone delete lineage they may not even see, so they
    are refused until a key is set (fail closed).
    """
    if expected is None and not reads_open:
        raise Forbidden(
            "prune and reset are disabled: the authorizer restricts reads but "
            "openlineage.consumer.api_key is not set; set it and send it as X-API-Key",
            code="admin_key_required",
        )
    check_api_key(conn, expected, is_read_key=is_read_key)
