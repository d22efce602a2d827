"""Removing credentials from URIs before anything is stored or logged.

``postgres://user:secret@db:5432/x`` becomes ``postgres://db:5432/x``;
query parameters that carry secrets (password, token, ...) are dropped.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SECRET_PARAMS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "secret",
        "token",
        "access_token",
        "api_key",
        "apikey",
        "key",
        "sig",
        "signature",
        "aws_secret_access_key",
        "x-amz-signature",
        "x-amz-security-token",
        "sas",
    }
)
_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*://)[^/@?#]*@")


def strip_credentials(uri: str) -> str:
    """Return ``uri`` without user information or secret query parameters."""
    if "://" not in uri:
        return uri
    cleaned = _USERINFO.sub(r"\1", uri, count=1)
    if "?" not in cleaned:
        return cleaned
    try:
        parts = urlsplit(cleaned)
    except ValueError:
        return cleaned.split("?", 1)[0]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)]
    kept = [(k, v) for k, v in query if k.lower() not in _SECRET_PARAMS]
    if len(kept) == len(query):
        return cleaned
    return urlunsplit(parts._replace(query=urlencode(kept)))


def has_credentials(uri: str) -> bool:
    return strip_credentials(uri) != uri


def scrub(value: Any) -> Any:
    """Strip credentials from every URI-like string inside a JSON value.

    Returns the same object when nothing changed, so callers can test
    identity cheaply.
    """
    if isinstance(value, str):
        return strip_credentials(value) if "://" in value else value
    if isinstance(value, dict):
        changed = False
        out: dict[str, Any] = {}
        for k, v in value.items():
            nv = scrub(v)
            changed = changed or nv is not v
            out[k] = nv
        return out if changed else value
    if isinstance(value, list):
        items = [scrub(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return items
        return value
    return value
