"""FROZEN at migration 0016: never change this module.

What ingest stored as a run's job version parts when migration 0016 was
written (``consumer/store/write/job_versions.py``, ``RunParts.to_json``):
the datasets its events listed, each with the table it stands for, less a
dataset's own entry where another names its table, and per source facet
the (rank, digest) of the latest event carrying it, as canonical JSON.
Ingest compares the stored text with the text of the merged parts, so it
must be written exactly as ingest wrote it then. Why frozen: see
``frozen/__init__.py``.
"""

from __future__ import annotations

from collections.abc import Iterable

from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import dumps_str

IoPart = tuple[str, int, int, str, str]


def parts_json(io: Iterable[IoPart], sources: Iterable[tuple[str, str, str]]) -> str:
    """``io``: (direction, dataset, group id, group namespace, group name); ``sources``:
    (facet name, rank, digest), the highest rank winning per name."""
    rows = set(io)
    grouped = {(p[0], p[1]) for p in rows if p[2] != p[1]}
    named = {p for p in rows if p[2] != p[1] or (p[0], p[1]) not in grouped}
    latest: dict[str, tuple[str, str]] = {}
    for name, rank, digest in sources:
        if name not in latest or rank > latest[name][0]:
            latest[name] = (rank, digest)
    return dumps_str(
        {
            "io": [list(part) for part in sorted(named)],
            "sources": {name: list(value) for name, value in latest.items()},
        }
    )
