"""The dataset version rows of one event: what it tells of each dataset's history.

An event adds a row for a dataset when it *wrote* it (a ``COMPLETE``
RunEvent listing it as an output) or when it carries one of the facets a
version follows (:data:`TRACKED`: ``schema``, ``lifecycleStateChange``,
``version``, ``symlinks``) for it, whether the event is a RunEvent (any
type, inputs and outputs) or a DatasetEvent. JobEvents declare, they do
not happen: they add none.

Rows are immutable and content-addressed: the id is a digest of the
dataset, the run (or, for a DatasetEvent, the event) that made it, the
event's key and the digest of the dataset's facets in it, so every
delivery of an event writes the same row (``insert_ignore``) and a late
event never renumbers or rewrites another. Which rows are *versions* (a
write, or a change of a followed facet against the rows before it in
(event time, id) order) is decided at read time
(:mod:`feast_lineage.consumer.store.read.dataset_versions`), so the answer
does not depend on the order events arrive in.

The schema, the lifecycle change and the symlinks are pointers to the
content-addressed facet blobs ingest already stores for the dataset's
facets, so a run writing the schema the version before had stores a row
of ids, not a copy of the schema. Migration 0012 derives the same rows
from stored events with a frozen copy of this module
(``schema/migrations/frozen/dataset_versions_0012.py``).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, TypedDict

from feast_lineage import canonical_json
from feast_lineage.consumer.store.schema.tables import VERSION_EVENT_TYPES as EVENT_TYPES
from feast_lineage.identity import dataset_id, job_id

# The dataset facets whose change makes a version.
TRACKED = ("schema", "lifecycleStateChange", "version", "symlinks")
_MASK = (1 << 63) - 1


class DatasetVersionRow(TypedDict):
    """One observation of a dataset by one event (:mod:`.dataset_versions`)."""

    id: int  # 63-bit digest of (dataset, run or event, event key, facets digest, writes)
    dataset_id: int
    time_us: int  # the event's eventTime
    run_id: bytes | None  # the run's UUID, 16 bytes; None for a DatasetEvent
    job_id: int | None  # None for a DatasetEvent
    event_type: int | None  # the RunEvent's type, coded (tables.VERSION_EVENT_TYPES)
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


# (dataset id, facet name or "" for the whole dataset, value) -> the value's
# canonical digest. Ingest passes one that remembers repeated values
# (intake/facet_memo.py); the answer must be :func:`canonical_digest`'s.
Digest = Callable[[int, str, Any], str]


def canonical_digest(_dataset: int, _name: str, value: Any) -> str:
    return canonical_json.digest(canonical_json.dumps(value))


def _blob(digest: Digest, did: int, facets: dict[str, Any], name: str) -> str | None:
    value = facets.get(name)
    if value is None:
        return None
    return digest(did, name, value)


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
    digest: Digest,
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
    facets_digest = _id(digest(did, "", ds))
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
        "schema_id": _blob(digest, did, facets, "schema"),
        "lifecycle_id": _blob(digest, did, facets, "lifecycleStateChange"),
        "dataset_version": dataset_version if isinstance(dataset_version, str) else None,
        "symlinks_id": _blob(digest, did, facets, "symlinks"),
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
    digest: Digest = canonical_digest,
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
                digest=digest,
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
                        digest=digest,
                    )
                )
    for row in found:
        if row is not None:
            out.setdefault(row["id"], row)
    return out
