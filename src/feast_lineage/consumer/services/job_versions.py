"""A job's versions: ``/jobs/{namespace}/{name}/versions`` and ``.../versions/{id}``.

What a version is, and why a partition counts as its table: see
:mod:`feast_lineage.consumer.store.write.job_versions` and
:mod:`feast_lineage.consumer.intake.job_version_parts`. A scoped caller sees
the versions of jobs in namespaces it may see, and of each version only
the datasets of those namespaces (and the source facets redacted alike).
``until`` reads each version as it stood then: a run under way then counts
under the version its events until then define (:mod:`.job_versions_then`).
"""

from __future__ import annotations

import orjson
from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.feast_shape import ms
from feast_lineage.consumer.schemas import (
    DatasetRef,
    Facets,
    JobVersionChanges,
    JobVersionDetail,
    JobVersionItem,
    JobVersionPage,
    JobVersionRun,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.job_versions_then import one_then, page_then
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.version_pages import VersionWindow
from feast_lineage.consumer.store.read import job_versions as reads
from feast_lineage.consumer.store.read.common import count, in_ids, where_all
from feast_lineage.consumer.store.read.dataset_versions import horizon
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import to_iso
from feast_lineage.identity import job_id


def _job(conn: Connection, read: StoreReader, namespace: str, name: str) -> int:
    """The job's id; a 404 when it is not stored or not visible."""
    jid = job_id(namespace, name)
    j = t.jobs.c
    if not count(conn, t.jobs, j.id == jid, *where_all(in_ids(j.ns_id, read.scope.ns_ids))):
        raise NotFound(f"no job {name!r} in namespace {namespace!r}; {not_found.JOBS}")
    return jid


def _refs(read: StoreReader, tables: tuple[tuple[str, str], ...]) -> list[DatasetRef]:
    return [DatasetRef(namespace=ns, name=n) for ns, n in tables if read.scope.allows(ns)]


def _items(
    conn: Connection,
    read: StoreReader,
    namespace: str,
    name: str,
    jid: int,
    rows: list[reads.JobVersionRow],
) -> list[JobVersionItem]:
    current = reads.current_version(conn, jid)
    digests = {d for row in rows for _, d in row.content.sources}
    payloads = reads.source_payloads(conn, jid, digests)
    items = []
    for row in rows:
        facets: Facets = {
            facet: orjson.loads(payloads[d]) for facet, d in row.content.sources if d in payloads
        }
        facets = redaction.facets(facets, read.scope)
        job_type = facets.get("jobType", {}).get("jobType")
        latest = row.latest_run
        items.append(
            JobVersionItem(
                id=row.id,
                job_namespace=namespace,
                job_name=name,
                created_at=ms(row.first_us) or 0,
                created_at_iso=to_iso(row.first_us) or "",
                current=row.id == current,
                inputs=_refs(read, row.content.inputs),
                outputs=_refs(read, row.content.outputs),
                source_facets=facets,
                job_type=job_type if isinstance(job_type, str) else None,
                run_count=row.run_count,
                latest_run=JobVersionRun(
                    run_id=latest.run_id,
                    state=latest.state,
                    started_at=ms(latest.started_us) or 0,
                    started_at_iso=to_iso(latest.started_us) or "",
                )
                if latest is not None
                else None,
            )
        )
    return items


def job_version_page(
    read: StoreReader,
    *,
    namespace: str,
    name: str,
    window: VersionWindow,
) -> JobVersionPage:
    """A page of the job's versions first seen in the window, newest first."""
    w = window
    with read.engine.connect() as conn:
        jid = _job(conn, read, namespace, name)
        if w.until_us is None:
            total, rows = reads.version_page(conn, jid, w.since_us, None, w.offset, w.limit)
        else:
            total, rows = page_then(conn, jid, w.since_us, w.until_us, w.offset, w.limit)
        items = _items(conn, read, namespace, name, jid, rows)
    return JobVersionPage(versions=items, total=total, limit=w.limit, offset=w.offset)


def _changes(before: JobVersionItem, after: JobVersionItem) -> JobVersionChanges:
    def key(ref: DatasetRef) -> tuple[str, str]:
        return ref["namespace"], ref["name"]

    def minus(a: list[DatasetRef], b: list[DatasetRef]) -> list[DatasetRef]:
        known = {key(r) for r in b}
        return [r for r in a if key(r) not in known]

    names = set(before.source_facets) | set(after.source_facets)
    return JobVersionChanges(
        inputs_added=minus(after.inputs, before.inputs),
        inputs_removed=minus(before.inputs, after.inputs),
        outputs_added=minus(after.outputs, before.outputs),
        outputs_removed=minus(before.outputs, after.outputs),
        source_facets_changed=sorted(
            n for n in names if before.source_facets.get(n) != after.source_facets.get(n)
        ),
    )


def job_version_detail(
    read: StoreReader, *, namespace: str, name: str, version: str, until_us: int | None = None
) -> JobVersionDetail:
    """One version of the job, with what changed from the version before it.

    ``until``: as it stood then (as the list ``until`` answers it); not run by then, a 404.
    """
    with read.engine.connect() as conn:
        jid = _job(conn, read, namespace, name)
        if until_us is None:
            row = reads.one_version(conn, jid, version)
            before = reads.previous_version(conn, jid, row) if row is not None else None
        else:
            row, before = one_then(conn, jid, version, until_us)
        if row is None:
            raise NotFound(_missing(conn, namespace, name, version, until_us))
        found = [row] if before is None else [row, before]
        items = _items(conn, read, namespace, name, jid, found)
    item = items[0]
    previous = items[1] if len(items) > 1 else None
    return JobVersionDetail(
        **item.model_dump(),
        previous_id=previous.id if previous is not None else None,
        changes=_changes(previous, item) if previous is not None else None,
    )


def _missing(
    conn: Connection, namespace: str, name: str, version: str, until_us: int | None
) -> str:
    """The 404 message: no such version, or one retention may have pruned (naming the horizon).

    Retention is named only once a prune has removed history (the horizon is
    set): on a store no prune has taken anything from, an unknown id never existed.
    """
    message = f"no version {version!r} of job {name!r} in namespace {namespace!r}"
    if until_us is not None:
        message += f" run before {to_iso(until_us)}"
    pruned = horizon(conn)
    if pruned is not None:
        message += (
            f"; retention pruned the versions whose runs all ended before {to_iso(pruned)} "
            "(the job's current version is always kept)"
        )
    return f"{message}; {not_found.JOB_VERSIONS}"
