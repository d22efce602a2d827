"""FROZEN at migration 0013: never change this module.

What ingest did to define job versions when migration 0013 was written:
the table a listed dataset stands for and a source facet as it counts
(``consumer/intake/job_version_parts.py``), and a run's version content
and id from its parts (``consumer/store/write/job_versions.py``). Version
ids key stored rows, so they must be computed exactly as ingest did then.
Why frozen: see ``frozen/__init__.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import digest, dumps

SOURCE_FACETS = ("sourceCode", "sql", "sourceCodeLocation", "jobType")

_PARTITION_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*=[^/=]*")


def table_of(ds: dict[str, Any]) -> tuple[str, str]:
    namespace, name = ds["namespace"], ds["name"]
    facets = ds.get("facets")
    symlinks = facets.get("symlinks") if isinstance(facets, dict) else None
    identifiers = symlinks.get("identifiers") if isinstance(symlinks, dict) else None
    tables = sorted(
        (i["namespace"], i["name"])
        for i in (identifiers if isinstance(identifiers, list) else [])
        if isinstance(i, dict)
        and str(i.get("type", "")).upper() == "TABLE"
        and isinstance(i.get("namespace"), str)
        and isinstance(i.get("name"), str)
        and i["namespace"]
        and i["name"]
    )
    if tables:
        return tables[0]
    return namespace, strip_partitions(name)


def strip_partitions(name: str) -> str:
    parts = name.rstrip("/").split("/")
    end = len(parts)
    while end > 1 and _PARTITION_SEGMENT.fullmatch(parts[end - 1]):
        end -= 1
    return name if end == len(parts) else "/".join(parts[:end])


def source_payload(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if value.get("_deleted") is True:
        return None
    kept = {k: v for k, v in value.items() if not k.startswith("_")}
    return kept or None


def source_digest(value: Any) -> tuple[str, str | None]:
    """(digest, canonical payload text) of a source facet; ("", None) when deleted."""
    payload = source_payload(value)
    if payload is None:
        return "", None
    text = dumps(payload)
    return digest(text), text.decode()


def content_json(
    io: Iterable[tuple[str, int, int, str, str]], sources: Iterable[tuple[str, str, str]]
) -> str:
    grouped: dict[tuple[str, int], set[tuple[int, str, str]]] = {}
    for direction, did, gid, gns, gname in io:
        grouped.setdefault((direction, did), set()).add((gid, gns, gname))
    tables: dict[str, set[tuple[str, str]]] = {"input": set(), "output": set()}
    for (direction, did), groups in grouped.items():
        named = {g for g in groups if g[0] != did} or groups
        tables.setdefault(direction, set()).update((gns, gname) for _, gns, gname in named)
    latest: dict[str, tuple[str, str]] = {}
    for name, rank, d in sources:
        if name not in latest or rank > latest[name][0]:
            latest[name] = (rank, d)
    return dumps(
        {
            "inputs": [list(x) for x in sorted(tables["input"])],
            "outputs": [list(x) for x in sorted(tables["output"])],
            "sources": {name: d for name, (_, d) in sorted(latest.items()) if d},
        }
    ).decode()


def version_id(job_id: int, content: str) -> str:
    return digest(f"{job_id}\x1f{content}".encode())
