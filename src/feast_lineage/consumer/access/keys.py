"""API key authentication, as the OpenLineage client's ``api_key`` auth sends it.

The key comes in ``X-API-Key`` or ``Authorization: Bearer <key>`` and is
compared in constant time. With no key configured, every request passes
(the spec's open mode; the server logs a warning at startup).
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from typing import NoReturn

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


WriteRefusal = Callable[[str], Forbidden | None]
"""The authorizer's ``403`` for a credential that may read but not write (a read key, a
Feast access token), or ``None`` when the key is no credential of its own."""


def check_api_key(
    conn: HTTPConnection, expected: str | None, *, refuse_write: WriteRefusal | None = None
) -> None:
    """Raise :class:`Unauthorized` unless the request carries ``expected``.

    ``refuse_write`` may block (it may ask an identity provider): call it off
    the event loop, or split this into :func:`wrong_api_key` and
    :func:`refuse_wrong_key` as :mod:`feast_lineage.consumer.deps` does.
    """
    wrong = wrong_api_key(conn, expected)
    if wrong is not None:
        refuse_wrong_key(wrong, refuse_write)


def wrong_api_key(conn: HTTPConnection, expected: str | None) -> str | None:
    """The key the request carries when it is not ``expected`` (``None``: it is, or no key is
    configured); :class:`Unauthorized` when it carries none."""
    if expected is None:
        return None
    key = presented_key(conn)
    if key is None:
        raise Unauthorized(
            "an API key is required: send it as X-API-Key or Authorization: Bearer <key>",
            headers=CHALLENGE,
        )
    if hmac.compare_digest(key.encode(), expected.encode()):
        return None
    return key


def refuse_wrong_key(key: str, refuse_write: WriteRefusal | None) -> NoReturn:
    """Refuse ``key``, which is not the ``api_key``.

    A credential that may read (``refuse_write`` says which, and how) is a
    valid one that may not write: its :class:`Forbidden`, which says no more
    than what kind of credential it is. Anything else is a 401 ``invalid_api_key``.
    """
    refusal = refuse_write(key) if refuse_write is not None else None
    if refusal is not None:
        raise refusal
    raise Unauthorized("the API key is not valid", code="invalid_api_key", headers=CHALLENGE)


def check_admin_enabled(expected: str | None, *, reads_open: bool) -> None:
    """Refuse prune and reset when they are open (no key configured) but reads are not.

    With no key configured they are open, as the spec says, but only while
    reads are open too: under an authorizer that restricts reads, open admin
    endpoints would let anyone delete lineage they may not even see, so they
    are refused until a key is set (fail closed). The key itself is checked
    as for ingest (:func:`check_api_key`).
    """
    if expected is None and not reads_open:
        raise Forbidden(
            "prune and reset are disabled: the authorizer restricts reads but "
            "openlineage.consumer.api_key is not set; set it and send it as X-API-Key",
            code="admin_key_required",
        )
