"""FROZEN at migration 0012: never change this module.

The dataset version rows of one stored event, copied from
``consumer/store/write/dataset_versions.py`` as it was when migration 0012
was written (canonical JSON and ids from the 0009 frozen copies), so that
what 0012 derives never follows a later change to ingest. Why frozen, and
why ``duplicates`` lists this beside its source: see ``frozen/__init__.py``.
"""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

from feast_lineage.consumer.store.schema.migrations.frozen import payloads_0009 as canonical_json
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import (
    dataset_id,
    job_id,
)

# The dataset facets whose change makes a version.
TRACKED = ("schema", "lifecycleStateChange", "version", "symlinks")
_MASK = (1 << 63) - 1
# A RunEvent's type as stored (a small integer: one byte a row).
EVENT_TYPES = {"START": 1, "RUNNING": 2, "COMPLETE": 3, "ABORT": 4, "FAIL": 5, "OTHER": 6}


class DatasetVersionRow(TypedDict):
    """One observation of a dataset by one event."""

    id: int  # 63-bit digest of (dataset, run or event, event key, facets digest, writes)
    dataset_id: int
    time_us: int  # the event's eventTime
    run_id: bytes | None  # the run's UUID, 16 bytes; None for a DatasetEvent
    job_id: int | None  # None for a DatasetEvent
    event_type: int | None  # the RunEvent's type, as EVENT_TYPES codes it
    writes: int  # 1: a COMPLETE run listed it as an output (always a version)
    schema_id: str | None  # facet blob of its ``schema`` facet, when the event has one
    lifecycle_id: str | None  # facet blob of its ``lifecycleStateChange`` facet
    dataset_version: str | None  # its ``version`` facet's ``datasetVersion``
    symlinks_id: str | None  # facet blob of its ``symlinks`` facet
    row_count: int | None  # outputStatistics of a written dataset
    byte_count: int | None
    file_count: int | None
    facets_digest: int  # 63-bit digest of the dataset as the event states it


def _id(digest: str) -> int:
    """A 63-bit integer of a hex digest (stored as a BIGINT on every database)."""
    return int(digest[:16], 16) & _MASK


def _blob(facets: dict[str, Any], name: str) -> str | None:
    value = facets.get(name)
    if value is None:
        return None
    return canonical_json.digest(canonical_json.dumps(value))


def _count(stats: Any, key: str) -> int | None:
    value = stats.get(key) if isinstance(stats, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return int(value) if -(2**63) <= value < 2**63 else None


def _row(
    ds: Any,
    *,
    writes: bool,
    event_key: str,
    time_us: int,
    run_id: str | None,
    job: int | None,
    event_type: str | None,
) -> DatasetVersionRow | None:
    if not isinstance(ds, dict):
        return None
    namespace, name = ds.get("namespace"), ds.get("name")
    if not isinstance(namespace, str) or not isinstance(name, str):
        return None
    facets = ds.get("facets")
    facets = facets if isinstance(facets, dict) else {}
    if not writes and not any(facets.get(name) is not None for name in TRACKED):
        return None
    did = dataset_id(namespace, name)
    facets_digest = _id(canonical_json.digest(canonical_json.dumps(ds)))
    maker = run_id if run_id is not None else event_key
    key = f"{did}\x1f{maker}\x1f{event_key}\x1f{facets_digest}\x1f{int(writes)}".encode()
    version = facets.get("version")
    dataset_version = version.get("datasetVersion") if isinstance(version, dict) else None
    io_facets = ds.get("outputFacets")
    stats = io_facets.get("outputStatistics") if writes and isinstance(io_facets, dict) else None
    return {
        "id": _id(canonical_json.digest(key)),
        "dataset_id": did,
        "time_us": time_us,
        "run_id": uuid.UUID(run_id).bytes if run_id is not None else None,
        "job_id": job,
        "event_type": EVENT_TYPES.get(event_type) if event_type is not None else None,
        "writes": 1 if writes else 0,
        "schema_id": _blob(facets, "schema"),
        "lifecycle_id": _blob(facets, "lifecycleStateChange"),
        "dataset_version": dataset_version if isinstance(dataset_version, str) else None,
        "symlinks_id": _blob(facets, "symlinks"),
        "row_count": _count(stats, "rowCount"),
        "byte_count": _count(stats, "size"),
        "file_count": _count(stats, "fileCount"),
        "facets_digest": facets_digest,
    }


def version_rows(
    event: dict[str, Any],
    kind: str,
    *,
    event_key: str,
    time_us: int,
    run_id: str | None,
) -> dict[int, DatasetVersionRow]:
    """The rows ``event`` (validated, credentials removed) adds, by id."""
    out: dict[int, DatasetVersionRow] = {}
    found: list[DatasetVersionRow | None] = []
    if kind == "dataset":
        found.append(
            _row(
                event.get("dataset"),
                writes=False,
                event_key=event_key,
                time_us=time_us,
                run_id=None,
                job=None,
                event_type=None,
            )
        )
    elif kind == "run":
        job = event.get("job")
        ns, name = (job.get("namespace"), job.get("name")) if isinstance(job, dict) else (0, 0)
        jid = job_id(ns, name) if isinstance(ns, str) and isinstance(name, str) else None
        event_type = event.get("eventType")
        event_type = event_type if isinstance(event_type, str) else None
        for key, output in (("inputs", False), ("outputs", True)):
            listed = event.get(key)
            for ds in listed if isinstance(listed, list) else []:
                found.append(
                    _row(
                        ds,
                        writes=output and event_type == "COMPLETE",
                        event_key=event_key,
                        time_us=time_us,
                        run_id=run_id,
                        job=jid,
                        event_type=event_type,
                    )
                )
    for row in found:
        if row is not None:
            out.setdefault(row["id"], row)
    return out
