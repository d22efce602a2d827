"""Canonical JSON: one byte form for every JSON value.

Keys are sorted, separators are compact and text is UTF-8. Stored events,
facet blobs and deduplication keys all go through :func:`dumps`, so the same
event always produces the same bytes and the same key. Null values are kept:
facets are stored verbatim, and a producer's explicit ``null`` is data.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> bytes:
    """Serialize ``value`` canonically."""
    return orjson.dumps(value, option=_OPTIONS)


def dumps_str(value: Any) -> str:
    return dumps(value).decode()


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)


def digest(data: bytes) -> str:
    """A 128-bit content key (32 hex characters) of canonical bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()
