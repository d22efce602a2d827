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
from feast_lineage.consumer.store.write.job_versions import (
    SOURCE_FACETS,
    JobVersionParts,
    RunOwner,
)
from feast_lineage.identity import dataset_id, namespace_id

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


def source_payload(value: Any) -> Any:
    """A source facet as it counts: without its ``_`` keys; None when deleted or empty."""
    if not isinstance(value, dict):
        return value
    if value.get("_deleted") is True:
        return None
    kept = {k: v for k, v in value.items() if not k.startswith("_")}
    return kept or None


def add_parts(
    out: JobVersionParts,
    event: dict[str, Any],
    job_id: int,
    job_ns: str,
    run_key: str,
    rank: str,
    time_us: int,
    *,
    is_run: bool,
) -> None:
    """Add the parts of ``event`` (a RunEvent or JobEvent of job ``job_id``) to ``out``."""
    out.owners[run_key] = RunOwner(job_id, namespace_id(job_ns), None if is_run else time_us)
    for direction, key in (("input", "inputs"), ("output", "outputs")):
        listed = event.get(key)
        for ds in listed if isinstance(listed, list) else []:
            did = dataset_id(ds["namespace"], ds["name"])
            gns, gname = table_of(ds)
            gid = dataset_id(gns, gname)
            out.io.setdefault(
                (run_key, direction, did, gid),
                {
                    "run_key": run_key,
                    "direction": direction,
                    "dataset_id": did,
                    "group_id": gid,
                    "group_namespace": gns,
                    "group_name": gname,
                },
            )
    facets = event.get("job", {}).get("facets")
    if not isinstance(facets, dict):
        return
    for name in SOURCE_FACETS:
        if name not in facets:
            continue
        payload = source_payload(facets[name])
        if payload is None:
            digest = ""  # deleted: counts as absent, but as the latest value
        else:
            text = canonical_json.dumps(payload)
            digest = canonical_json.digest(text)
            out.payloads.setdefault(
                (job_id, digest), {"job_id": job_id, "digest": digest, "payload": text.decode()}
            )
        out.sources.setdefault(
            (run_key, name, rank),
            {"run_key": run_key, "name": name, "rank": rank, "digest": digest},
        )
