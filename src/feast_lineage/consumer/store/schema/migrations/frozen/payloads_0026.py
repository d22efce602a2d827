"""FROZEN at migration 0026: never change this module.

Reading a stored event payload once a store has payload dictionaries
(migration 0025): a Zstandard frame names the dictionary it was compressed
with (0: none), and the dictionaries are rows of
``feast_lineage_payload_dicts``. Copied as ``consumer/store/schema/codec.py``
read them when migration 0026 was written; ``payloads_0009`` reads frames
compressed alone only. Why frozen: see ``frozen/__init__.py``.
"""

from __future__ import annotations

import sqlalchemy as sa
import zstandard

_MAGIC = b"\x28\xb5\x2f\xfd"  # a Zstandard frame's first four bytes


class Payloads:
    """Decompresses a store's payloads, reading each dictionary once, when first needed."""

    def __init__(self, conn: sa.Connection) -> None:
        self._conn = conn
        self._readers: dict[int, zstandard.ZstdDecompressor] = {}

    def decompress(self, data: bytes) -> bytes:
        dict_id = 0
        if data[:4] == _MAGIC:
            dict_id = zstandard.get_frame_parameters(data).dict_id
        reader = self._readers.get(dict_id)
        if reader is None:
            reader = self._readers[dict_id] = self._reader(dict_id)
        return reader.decompress(data)

    def _reader(self, dict_id: int) -> zstandard.ZstdDecompressor:
        if not dict_id:
            return zstandard.ZstdDecompressor()
        row = self._conn.execute(
            sa.text("SELECT data FROM feast_lineage_payload_dicts WHERE id = :id"), {"id": dict_id}
        ).first()
        if row is None:  # not a frame ingest wrote: reading it fails, as any corrupt one
            raise zstandard.ZstdError(f"no payload dictionary {dict_id}")
        return zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(bytes(row[0])))
