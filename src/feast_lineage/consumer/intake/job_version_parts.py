"""An event's job version parts: the tables it read and wrote, and its source facets.

What defines a job's version (:mod:`feast_lineage.consumer.store.write.job_versions`)
is its set of input and output datasets, but a dataset named by a
partition (``s3://b/t/date=2026-12-01``) moves every run: counting it as
itself would mint a version a run. Each dataset is counted as the table it
belongs to, found in this order:

1. a ``symlinks`` identifier of type ``TABLE`` (Spark and Hive name a path
   and point at its table this way; the smallest by namespace and name when
   there are several);
2. otherwise the dataset's own name, less a trailing run of Hive-style
   partition segments (``key=value`` path segments): that is the partition
   information producers put in the name itself. The OpenLineage ``subset``
   input/output facets (partition conditions) and ``datasetType`` name the
   partitions *of* a dataset whose name is already the table, so such a
   dataset is counted as itself.

Source facets (``sourceCode``, ``sql``, ``sourceCodeLocation``, ``jobType``)
count without their ``_producer`` and ``_schemaURL`` (an upgraded client
does not change what the job does); a deleted facet (``_deleted``) counts
as absent.
"""

from __future__ import annotations

import re
from typing import Any

from feast_lineage import canonical_json
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.store.write.job_versions import SOURCE_FACETS, source_payload
from feast_lineage.consumer.store.write.rows import JobVersionParts, PendingSource
from feast_lineage.identity import dataset_id

_PARTITION_SEGMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*=[^/=]*")


def table_of(ds: dict[str, Any]) -> tuple[str, str]:
    """The (namespace, name) of the table a listed dataset stands for."""
    namespace, name = ds["namespace"], ds["name"]
    facets = ds.get("facets")
    symlinks = facets.get("symlinks") if isinstance(facets, dict) else None
    if symlinks is None:
        return namespace, strip_partitions(name) if "=" in name else name
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
    """``name`` without its trailing ``key=value`` path segments (one segment at least stays)."""
    parts = name.rstrip("/").split("/")
    end = len(parts)
    while end > 1 and _PARTITION_SEGMENT.fullmatch(parts[end - 1]):
        end -= 1
    return name if end == len(parts) else "/".join(parts[:end])


def add_parts(
    out: JobVersionParts,
    event: dict[str, Any],
    job_id: int,
    run_key: str,
    rank: str,
    memo: FacetMemo | None,
) -> None:
    """Add what ``event`` (a RunEvent or JobEvent of job ``job_id``) adds to its run's version.

    The datasets it lists reach the writer as ``run_io`` rows already; only
    those that stand for another dataset (their table) are added here.
    ``memo`` remembers source facets' digests, as it does blobs'.
    """
    for direction, key in (("input", "inputs"), ("output", "outputs")):
        listed = event.get(key)
        for ds in listed if listed else ():
            name, facets = ds["name"], ds.get("facets")
            if "=" not in name and not (isinstance(facets, dict) and "symlinks" in facets):
                continue  # the common case: the dataset is its own table
            gns, gname = table_of(ds)
            if gns != ds["namespace"] or gname != name:
                did = dataset_id(ds["namespace"], name)
                out.tables.add((run_key, direction, did, dataset_id(gns, gname), gns, gname))
    facets = event.get("job", {}).get("facets")
    if not isinstance(facets, dict):
        return
    for name in SOURCE_FACETS:
        if name in facets:
            digest = _source_digest(out, job_id, name, facets[name], memo)
            out.add_source(run_key, name, rank, digest)


def _source_digest(
    out: JobVersionParts, job_id: int, name: str, value: Any, memo: FacetMemo | None
) -> str:
    """The digest of a source facet as it counts ("" when deleted); its payload into ``out``."""
    fingerprint = 0
    if memo is not None:
        fingerprint = memo.fingerprint(value)
        known = memo.get((job_id, "source:" + name), fingerprint)
        if known is not None:
            if known and (job_id, known) not in out.payloads:
                out.payloads[(job_id, known)] = PendingSource(value)
            return known
    payload = source_payload(value)
    if payload is None:
        digest = ""  # deleted: counts as absent, but as the latest value
    else:
        text = canonical_json.dumps(payload)
        digest = canonical_json.digest(text)
        out.payloads[(job_id, digest)] = text.decode()
    if memo is not None:
        memo.put((job_id, "source:" + name), fingerprint, digest)
    return digest
