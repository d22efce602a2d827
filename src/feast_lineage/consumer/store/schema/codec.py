"""Compressed storage of raw event payloads.

Events are kept as canonical JSON compressed with Zstandard (level 1). A
store's first events are compressed alone (a typical 4 KB event becomes
about 1.1 KB); once it holds enough of them, the writer trains a Zstandard
*dictionary* from its latest events (:mod:`..write.payload_dictionary`),
keeps it in ``feast_lineage_payload_dicts`` and compresses every later
event with it: the parts events of the same producers share (facet keys,
schema URLs, namespaces, field lists) are then not stored again in each,
and the standard workload's events take about 360 bytes instead of 1,100.

A frame names the dictionary it needs (Zstandard writes its id in the
frame header), so any payload is read alone: :func:`decompress` takes the
dictionary from this process's registry, and one it has not seen (another
worker trained it) is read from the stores this process opened
(:func:`watch_store`), on a connection of its own, one lookup at a time,
once per process and dictionary. Dictionaries are never deleted: every
payload compressed with one needs it.

:class:`CompressedJSON` is the column type: SQLAlchemy statements read and
write ``str`` values and never see the bytes; the ingest hot path hands
bytes compressed by its store's :class:`PayloadCodec` straight to the driver.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import zstandard
from sqlalchemy import URL, Engine, LargeBinary, create_engine, text
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import NullPool
from sqlalchemy.types import TypeDecorator

LEVEL = 1
DICTS_TABLE = "feast_lineage_payload_dicts"
_MAGIC = b"\x28\xb5\x2f\xfd"  # a Zstandard frame's first four bytes

_local = threading.local()
_lock = threading.Lock()
_lookup = threading.Lock()
_dicts: dict[int, zstandard.ZstdCompressionDict] = {}  # dictionary id -> dictionary
_stores: weakref.WeakSet[Engine] = weakref.WeakSet()  # where an unknown one is looked up


class UnknownDictionary(LookupError):
    """A payload was compressed with a dictionary no open store holds."""


def _compressor(dict_id: int) -> zstandard.ZstdCompressor:
    found: dict[int, zstandard.ZstdCompressor] | None = getattr(_local, "c", None)
    if found is None:
        found = _local.c = {}
    c = found.get(dict_id)
    if c is None:
        d = _dicts[dict_id] if dict_id else None
        c = found[dict_id] = zstandard.ZstdCompressor(level=LEVEL, dict_data=d)
    return c


def _decompressor(dict_id: int) -> zstandard.ZstdDecompressor:
    found: dict[int, zstandard.ZstdDecompressor] | None = getattr(_local, "d", None)
    if found is None:
        found = _local.d = {}
    d = found.get(dict_id)
    if d is None:
        d = found[dict_id] = zstandard.ZstdDecompressor(dict_data=_dictionary(dict_id))
    return d


def register(data: bytes) -> int:
    """Make a dictionary's bytes known to this process; its id."""
    d = zstandard.ZstdCompressionDict(data)
    dict_id = d.dict_id()
    with _lock:
        _dicts.setdefault(dict_id, d)
    return dict_id


def watch_store(engine: Engine) -> None:
    """Look up dictionaries this process has not seen in ``engine``'s store too."""
    with _lock:
        _stores.add(engine)


def _dictionary(dict_id: int) -> zstandard.ZstdCompressionDict | None:
    if not dict_id:
        return None
    found = _dicts.get(dict_id)
    if found is not None:
        return found
    with _lookup:  # one lookup at a time: readers waiting on it then find it registered
        found = _dicts.get(dict_id)
        if found is not None:
            return found
        with _lock:
            urls = [engine.url for engine in _stores]
        for url in urls:
            data = _read_dictionary(url, dict_id)
            if data is not None:
                register(data)
                return _dicts[dict_id]
    raise UnknownDictionary(f"no open store holds payload dictionary {dict_id}")


def _read_dictionary(url: URL, dict_id: int) -> bytes | None:
    """Dictionary ``dict_id`` of the store at ``url``, on a connection of its own.

    Not one of the store engine's pool: the reader that needs it holds one
    already, and so may every other connection of the pool.
    """
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            data = conn.execute(
                text(f"SELECT data FROM {DICTS_TABLE} WHERE id = :id"), {"id": dict_id}
            ).scalar()
    except SQLAlchemyError:
        return None  # a store without the table, or gone
    finally:
        engine.dispose()
    return None if data is None else bytes(data)


def compress(data: bytes, dict_id: int = 0) -> bytes:
    """``data`` compressed, with the registered dictionary ``dict_id`` (0: none)."""
    return _compressor(dict_id).compress(data)


def decompress(data: bytes) -> bytes:
    """A payload's bytes, whichever dictionary (or none) compressed it."""
    dict_id = 0
    if data[:4] == _MAGIC:
        dict_id = zstandard.get_frame_parameters(data).dict_id
    return _decompressor(dict_id).decompress(data)


class PayloadCodec:
    """How one store's writer compresses payloads now: with its dictionary once it has one.

    Shared by the threads that derive events (they read ``dict_id``) and the
    writer (which sets it, once, after training or finding the dictionary).
    """

    def __init__(self) -> None:
        self.dict_id = 0

    def use(self, data: bytes) -> int:
        """Compress with the dictionary ``data`` from now on; its id."""
        self.dict_id = register(data)
        return self.dict_id

    def compress(self, data: bytes) -> bytes:
        return compress(data, self.dict_id)


class CompressedJSON(TypeDecorator[str]):
    """A JSON text column stored Zstandard-compressed."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> bytes | None:
        if value is None or isinstance(value, bytes):
            return value
        return compress(str(value).encode())

    def process_result_value(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return decompress(bytes(value)).decode()
