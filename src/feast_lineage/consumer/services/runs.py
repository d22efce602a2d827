"""Runs: filtered pages, newest first, and one run with its inputs and outputs."""

from __future__ import annotations

from sqlalchemy import Connection

from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.feast_shape import facets_json, ms
from feast_lineage.consumer.schemas import (
    DatasetStatistics,
    RunDataset,
    RunDetail,
    RunItem,
    RunPage,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine import meta
from feast_lineage.consumer.store.read import events as event_reads
from feast_lineage.consumer.store.read import runs as run_reads
from feast_lineage.consumer.store.read.common import JsonObject
from feast_lineage.consumer.store.read.positions import Page
from feast_lineage.consumer.store.read.run_facets import RunFacets, one_run_facets, run_facets
from feast_lineage.consumer.store.read.run_statistics import dataset_statistics
from feast_lineage.consumer.store.read.run_tree import child_count, tree_root
from feast_lineage.consumer.store.read.runs import RunFilter, RunRecord, sorted_runs
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.event_time import to_iso
from feast_lineage.identity import job_id


def _duration(started_us: int, ended_us: int | None) -> int | None:
    return None if ended_us is None else max(0, (ended_us - started_us) // 1000)


NEWEST_FIRST = Sort("started", descending=True)


def run_page(
    read: StoreReader,
    *,
    job_namespace: str | None,
    job_name: str | None,
    state: str | None,
    limit: int,
    offset: int,
    job_search: str | None = None,
    since_us: int | None = None,
    until_us: int | None = None,
    sort: Sort = NEWEST_FIRST,
) -> RunPage:
    """Runs matching every filter given, newest first or in ``sort`` order."""
    scope = read.scope
    narrowed = scope.narrow(job_namespace)
    with read.engine.connect() as conn:
        jobs: frozenset[int] | None = None
        if job_name is not None:
            if job_namespace is not None:
                jobs = frozenset({job_id(job_namespace, job_name)})
            else:
                jobs = event_reads.job_ids_named(conn, job_name, narrowed.ns_ids)
        if job_search is not None:
            found = run_reads.job_ids_containing(conn, job_search, narrowed.ns_ids)
            jobs = found if jobs is None else jobs & found
        wanted = RunFilter(
            ns_ids=narrowed.ns_ids, job_ids=jobs, state=state, since_us=since_us, until_us=until_us
        )
        page = _page(read, conn, wanted, sort, offset, limit)
        merged = run_facets(conn, [r.run_id for r in page.rows])
        refs = _visible_refs(conn, page.rows, merged, scope)
    items = [_run_item(r, _facets(merged.get(r.run_id), scope), refs) for r in page.rows]
    return RunPage(runs=items, total=page.total, limit=limit, offset=offset)


def _page(
    read: StoreReader, conn: Connection, wanted: RunFilter, sort: Sort, offset: int, limit: int
) -> Page[RunRecord]:
    if sort != NEWEST_FIRST:
        return sorted_runs(conn, wanted, sort, offset, limit)
    spec = run_reads.runs_list(conn, wanted)
    return read.positions.page(conn, spec, meta.generation(conn), offset=offset, limit=limit)


def _facets(merged: RunFacets | None, scope: Scope) -> JsonObject:
    """A run's merged facets as the caller may see them."""
    if merged is None:
        return {}
    shown: JsonObject = redaction.facets(merged.facets, scope)
    return shown


def _run_item(r: RunRecord, facets: JsonObject, refs: set[str]) -> RunItem:
    return RunItem(
        run_id=r.run_id,
        job_namespace=r.job_namespace,
        job_name=r.job_name,
        state=r.state,
        started_at=ms(r.started_us),
        ended_at=ms(r.ended_us),
        facets_json=facets_json(facets),
        parent_run_id=r.parent_run_id if r.parent_run_id in refs else None,
        root_run_id=r.root_run_id if r.root_run_id in refs else None,
        updated_at=ms(r.last_event_us),
        started_at_iso=to_iso(r.started_us),
        ended_at_iso=to_iso(r.ended_us),
        updated_at_iso=to_iso(r.last_event_us) or "",
        duration_ms=_duration(r.started_us, r.ended_us),
    )


def _visible_ref(
    conn: Connection, ref: str | None, facet_visible: bool, scope: Scope
) -> str | None:
    """``ref`` (a parent or root run id) if the caller may see it, else None.

    A stored run is visible when its namespace is; a run that is not stored
    when the facet naming it survived redaction (its job's namespace is visible).
    """
    if ref is None or scope.is_everything:
        return ref
    stored = run_reads.run_visible(conn, ref, scope.ns_ids)
    if stored is None:
        return ref if facet_visible else None
    return ref if stored else None


def _visible_refs(
    conn: Connection, rows: list[RunRecord], merged: dict[str, RunFacets], scope: Scope
) -> set[str]:
    """The parent and root run ids among ``rows`` that the caller may see."""
    if scope.is_everything:
        return {ref for r in rows for ref in (r.parent_run_id, r.root_run_id) if ref}
    visible: set[str] = set()
    for run in rows:
        if not (run.parent_run_id or run.root_run_id):
            continue
        parent = _facets(merged.get(run.run_id), scope).get("parent")
        if run.parent_run_id and _visible_ref(conn, run.parent_run_id, parent is not None, scope):
            visible.add(run.parent_run_id)
        root_named = isinstance(parent, dict) and "root" in parent
        if run.root_run_id and _visible_ref(conn, run.root_run_id, root_named, scope):
            visible.add(run.root_run_id)
    return visible


def run_detail(read: StoreReader, key: str) -> RunDetail:
    """The run ``key`` (a UUID in lower case, hyphenated) with its datasets and relatives."""
    engine, scope = read.engine, read.scope
    with engine.connect() as conn:
        row = run_reads.get_run(conn, key, scope.ns_ids)
        if row is None:
            raise not_found.run(key)
        merged = one_run_facets(conn, key)
        facets = _facets(merged, scope)
        io = run_reads.run_io(conn, key, scope.ns_ids)
        children = run_reads.child_runs(conn, key, scope.ns_ids)
        parent_facet = facets.get("parent")
        parent = _visible_ref(conn, row.parent_run_id, parent_facet is not None, scope)
        root_named = isinstance(parent_facet, dict) and "root" in parent_facet
        root = _visible_ref(conn, row.root_run_id, root_named, scope)
        if row.root_run_id is None and row.parent_run_id is not None:
            # No root named: the top of the tree its parents lead to.
            found = tree_root(conn, key)
            root = _visible_ref(conn, found, parent is not None, scope)
        children_total = child_count(conn, key)
    datasets = [(item.direction, _run_dataset(item, merged, scope)) for item in io]
    return RunDetail(
        run_id=key,
        job_namespace=row.job_namespace,
        job_name=row.job_name,
        state=row.state,
        started_at=ms(row.started_us),
        ended_at=ms(row.ended_us),
        parent_run_id=parent,
        root_run_id=root,
        updated_at=ms(row.last_event_us),
        inputs=[ds for direction, ds in datasets if direction == "input"],
        outputs=[ds for direction, ds in datasets if direction == "output"],
        facets=facets,
        started_at_iso=to_iso(row.started_us),
        ended_at_iso=to_iso(row.ended_us),
        updated_at_iso=to_iso(row.last_event_us) or "",
        duration_ms=_duration(row.started_us, row.ended_us),
        child_run_ids=children,
        child_count=children_total,
    )


def _run_dataset(item: run_reads.RunIo, merged: RunFacets, scope: Scope) -> RunDataset:
    """A dataset the run read or wrote, with its facets in this run as the caller may see them."""
    own = merged.io.get((item.dataset_id, item.direction))
    shown: JsonObject | None = redaction.facets(own, scope) if own else None
    stats = dataset_statistics(item.direction, own)
    return RunDataset(
        namespace=item.namespace,
        name=item.name,
        facets=shown,
        statistics=None
        if stats is None
        else DatasetStatistics(
            rows=stats.rows, bytes=stats.bytes, files=stats.files, facet=stats.facet
        ),
    )
