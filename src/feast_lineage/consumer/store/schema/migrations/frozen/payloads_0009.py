"""FROZEN at migration 0009 (used by 0009, 0010, 0011): never change this module.

Reading a stored event payload (Zstandard-compressed canonical JSON, as
``consumer/store/schema/codec.py`` wrote it), the canonical JSON bytes and digest
of a facet (``feast_lineage/canonical_json.py``), and an event's rank from
its key, copied as they were when migration 0009 was written. Digests key
stored rows, so they must be computed exactly as ingest did then. Why
frozen, and why ``duplicates`` lists this beside its source: see
``frozen/__init__.py``.
"""

from __future__ import annotations

import hashlib
from functools import cache
from typing import Any

import orjson
import zstandard

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


@cache
def _decompressor() -> zstandard.ZstdDecompressor:
    return zstandard.ZstdDecompressor()


def decompress(data: bytes) -> bytes:
    """A stored payload's canonical JSON bytes."""
    return _decompressor().decompress(data)


def dumps(value: Any) -> bytes:
    """Serialize ``value`` canonically (keys sorted, compact, UTF-8)."""
    return orjson.dumps(value, option=_OPTIONS)


def dumps_str(value: Any) -> str:
    return dumps(value).decode()


def digest(data: bytes) -> str:
    """A 128-bit content key (32 hex characters) of canonical bytes."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def rank(event_key: str) -> str:
    """The rank ingest gave the event, from its key (time in hex, then the content digest)."""
    return f"{int(event_key[:16], 16):020d}{event_key[16:]}"
