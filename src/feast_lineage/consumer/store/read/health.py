"""What health is computed from: failed runs, recent writes, one step of the current graph.

Health is computed at read time from rows ingest writes anyway (runs,
dataset versions, edges, symlinks): nothing is maintained at ingest
(docs/performance.md, Health). These reads are unscoped on purpose: a
cause in a hidden namespace still puts a visible node at risk, and the
service names it only as "a hidden upstream".

A step of health's walks follows the data (:data:`DATA_EDGES`, explicit
lineage edges, symlinks), never the run tree: a parent job's run fails
because a child's did, so a parent edge carries no risk from a parent to
its children, and a feature view's source (walked upstream) is never found
through its writer's parent. The graph's own walk still follows parent
edges.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any, NamedTuple

import orjson
from sqlalchemy import Connection, and_, bindparam, func, literal, or_, select, union_all

from feast_lineage.consumer.store.read.aliases import current_symlink
from feast_lineage.consumer.store.read.common import chunks
from feast_lineage.consumer.store.read.explicit import current_explicit_edge
from feast_lineage.consumer.store.read.graph import NodeKind, current_edge
from feast_lineage.consumer.store.schema import tables as t

FAILED_STATES = ("FAIL", "ABORT")
# Writes read per dataset (ten intervals to learn its expected interval from); retention
# keeps them (store/admin/dataset_versions.py).
KEEP_WRITES = 11
# The lineage edges a step of health's walks follows: what a job reads and writes (parent
# and root edges are the run tree: no data flows along them; module doc).
DATA_EDGES = ("input", "output")


class FailedRun(NamedTuple):
    """A job's latest terminal run when it failed (or was aborted) and nothing completed since."""

    job_id: int
    run_id: str
    state: str
    ended_us: int


class Step(NamedTuple):
    """One step of the current graph from ``near`` to ``far``; ``deeper``: 0 across a symlink."""

    near: int
    far: int
    deeper: int


class NodeInfo(NamedTuple):
    id: int
    kind: NodeKind
    ns_id: int
    namespace: str
    name: str
    feast_type: str | None


def failed_jobs(conn: Connection, job_ids: Collection[int] | None = None) -> list[FailedRun]:
    """Every job (of ``job_ids``; None: of all) whose latest ended run failed or was
    aborted, with no later COMPLETE."""
    r = t.runs.c
    ended = func.coalesce(r.ended_us, r.last_event_us)
    latest: dict[int, FailedRun] = {}
    stmt = select(r.job_id, r.run_id, r.state, ended).where(r.state.in_(FAILED_STATES))
    groups: Iterable[list[int] | None] = [None] if job_ids is None else chunks(job_ids)
    for chunk in groups:
        some = stmt if chunk is None else stmt.where(r.job_id.in_(chunk))
        for job, run, state, end in conn.execute(some).all():
            known = latest.get(job)
            if known is None or (end, run) > (known.ended_us, known.run_id):
                latest[job] = FailedRun(int(job), run, state, int(end))
    for chunk in chunks(latest):
        done = (
            select(r.job_id, func.max(ended))
            .where(r.job_id.in_(chunk), r.state == "COMPLETE")
            .group_by(r.job_id)
        )
        for job, end in conn.execute(done).all():
            if end is not None and int(end) >= latest[int(job)].ended_us:
                del latest[int(job)]
    return sorted(latest.values(), key=lambda f: (-f.ended_us, f.job_id))


def _wrote(v: Any) -> Any:
    """A dataset version row that is a write: a COMPLETE run's output, or a DatasetEvent's;
    not a run of a Feast definition job (:func:`definition_jobs`, the ``definitions``)."""
    return and_(
        or_(v.writes == 1, and_(v.event_type.is_(None), v.run_id.is_(None))),
        or_(v.job_id.is_(None), v.job_id.not_in(bindparam("definitions", expanding=True))),
    )


# A job's ``feast_job_kind`` facet; ``kind: definition`` is `feast apply` or lineage-sync.
_JOB_KIND = "feast_job_kind"


def definition_jobs(conn: Connection, among: Collection[int] | None = None) -> list[int]:
    """The jobs (of ``among`` only, by their key; None: every job) whose latest
    ``feast_job_kind`` facet says ``definition``: Feast's apply and lineage-sync, whose
    outputs are the registry's objects (definitions, not data)."""
    f, b = t.job_facets.c, t.facet_blobs.c
    stmt = (
        select(f.owner_id, b.payload)
        .join(t.facet_blobs, b.id == f.blob_id)
        .where(f.name == _JOB_KIND)
    )
    if among is not None:
        if not among:
            return []
        stmt = stmt.where(f.owner_id.in_(sorted(among)))
    found = []
    for owner, payload in conn.execute(stmt):
        try:
            kind = orjson.loads(payload).get("kind")
        except (orjson.JSONDecodeError, AttributeError):
            continue
        if kind == "definition":
            found.append(int(owner))
    return sorted(found)


@lru_cache(maxsize=2)
def _writes_statement(every: bool) -> Any:
    """Each dataset's latest ``keep`` writes: the keep-th latest write's time per dataset
    (one short index scan each), then the writes from it on (an index range each)."""
    d = t.datasets.c
    v = t.dataset_versions.alias("v")
    v2 = t.dataset_versions.alias("v2")
    skip: Any = bindparam("skip")  # keep - 1 (MariaDB takes no expression in LIMIT)
    kth = (
        select(v2.c.time_us)
        .where(v2.c.dataset_id == d.id, _wrote(v2.c))
        .order_by(v2.c.time_us.desc())
        .limit(1)
        .offset(skip)
        .scalar_subquery()
    )
    low = func.coalesce(kth, literal(-(2**62)))
    cut = select(d.id.label("did"), low.label("low"))
    if not every:
        cut = cut.where(d.id.in_(bindparam("ids", expanding=True)))
    # The LIMIT keeps SQLite from flattening the cut into the join (which
    # would run the subquery once per write rather than once per dataset).
    cuts = cut.limit(1 << 40).subquery("cut")
    return (
        select(v.c.dataset_id, v.c.time_us)
        .select_from(cuts.join(v, and_(v.c.dataset_id == cuts.c.did, v.c.time_us >= cuts.c.low)))
        .where(_wrote(v.c))
    )


def recent_writes(
    conn: Connection, dataset_ids: Collection[int] | None, keep: int
) -> dict[int, list[int]]:
    """Dataset id -> the times of its latest ``keep`` writes, newest first (None: every dataset).

    A write: a COMPLETE run listing it as an output, or a DatasetEvent
    stating a lifecycle change; not a Feast definition run (`feast apply`
    states what an object is, it writes no data). Datasets never written are
    left out.
    """
    found: dict[int, list[int]] = {}
    definitions = definition_jobs(conn)
    groups: Iterable[list[int] | None] = [None] if dataset_ids is None else chunks(dataset_ids)
    for chunk in groups:
        params: dict[str, Any] = {"skip": keep - 1, "definitions": definitions}
        if chunk is not None:
            params["ids"] = chunk
        stmt = _writes_statement(chunk is None)
        for did, time_us in conn.execute(stmt, params).all():  # BigIntegers: ints already
            if did in found:
                found[did].append(time_us)
            else:
                found[did] = [time_us]
    return {did: sorted(times, reverse=True)[:keep] for did, times in found.items()}


@lru_cache(maxsize=3)
def _steps_statement(downstream: bool, every: bool = False) -> Any:
    """One step of health's walk from each of ``ids`` (``every``: from every node), unscoped:
    the walk of :mod:`.graph` over data edges only (module doc)."""
    ids: Any = bindparam("ids", expanding=True)
    e = t.lineage_edges.alias("e")
    x = t.explicit_edges.alias("x")
    s1 = t.dataset_symlinks.alias("s1")
    s2 = t.dataset_symlinks.alias("s2")
    near, far = (e.c.src_id, e.c.dst_id) if downstream else (e.c.dst_id, e.c.src_id)
    x_near, x_far = (x.c.src_id, x.c.dst_id) if downstream else (x.c.dst_id, x.c.src_id)
    one, zero = literal(1), literal(0)

    def out_of(column: Any) -> Any:
        return literal(True) if every else column.in_(ids)

    return union_all(
        select(near, far, one).where(out_of(near), e.c.edge_type.in_(DATA_EDGES), current_edge(e)),
        select(x_near, x_far, one).where(out_of(x_near), current_explicit_edge(x)),
        select(s1.c.dataset_id, s1.c.alias_id, zero).where(
            out_of(s1.c.dataset_id), current_symlink(s1)
        ),
        select(s2.c.alias_id, s2.c.dataset_id, zero).where(
            out_of(s2.c.alias_id), current_symlink(s2)
        ),
    )


def every_step(conn: Connection, *, downstream: bool) -> list[Step]:
    """Every step of the current graph (as :func:`steps` out of every node at once)."""
    rows = conn.execute(_steps_statement(downstream, every=True)).all()
    return [Step(int(a), int(b), int(c)) for a, b, c in rows]


def steps(conn: Connection, ids: Collection[int], *, downstream: bool) -> list[Step]:
    """The current graph's steps out of ``ids`` (input and output edges, explicit edges,
    symlinks either way)."""
    out: list[Step] = []
    for chunk in chunks(ids):
        rows = conn.execute(_steps_statement(downstream), {"ids": chunk}).all()
        out.extend(Step(int(a), int(b), int(c)) for a, b, c in rows)
    return out


def node_info(conn: Connection, ids: Collection[int]) -> dict[int, NodeInfo]:
    """Id -> the job or dataset (any namespace; aliases never seen as datasets are left out)."""
    j, d = t.jobs.c, t.datasets.c
    out: dict[int, NodeInfo] = {}
    for chunk in chunks(ids):
        jobs = select(j.id, literal("job"), j.ns_id, j.namespace, j.name, literal(None))
        datasets = select(d.id, literal("dataset"), d.ns_id, d.namespace, d.name, d.feast_type)
        stmt = union_all(jobs.where(j.id.in_(chunk)), datasets.where(d.id.in_(chunk)))
        for row in conn.execute(stmt).all():
            out[int(row[0])] = NodeInfo(int(row[0]), row[1], int(row[2]), row[3], row[4], row[5])
    return out


def every_node(conn: Connection) -> dict[int, NodeInfo]:
    """Every job and dataset (any namespace), by id: one read of each table."""
    j, d = t.jobs.c, t.datasets.c
    stmt = union_all(
        select(j.id, literal("job"), j.ns_id, j.namespace, j.name, literal(None)),
        select(d.id, literal("dataset"), d.ns_id, d.namespace, d.name, d.feast_type),
    )
    rows = conn.execute(stmt).all()
    return {int(r[0]): NodeInfo(int(r[0]), r[1], int(r[2]), r[3], r[4], r[5]) for r in rows}


def latest_writing_runs(conn: Connection, dataset_ids: Collection[int]) -> dict[int, bytes]:
    """Dataset id -> the run (16 bytes) of its latest write by a COMPLETE run."""
    v = t.dataset_versions.c
    out: dict[int, tuple[int, bytes]] = {}
    for chunk in chunks(dataset_ids):
        stmt = select(v.dataset_id, v.time_us, v.run_id).where(
            v.dataset_id.in_(chunk), v.writes == 1, v.run_id.is_not(None)
        )
        for did, time_us, run in conn.execute(stmt).all():
            known = out.get(int(did))
            if known is None or time_us > known[0]:
                out[int(did)] = (int(time_us), bytes(run))
    return {did: run for did, (_, run) in out.items()}


class StoreMarker(NamedTuple):
    """What changes when events are stored, pruned or reset (:func:`store_marker`)."""

    high: int  # the highest event row id
    low: int  # the lowest
    started: int  # the latest run start
    generation: str  # the store generation: bumped by every prune and reset


def store_marker(conn: Connection) -> StoreMarker:
    """What changes when events are stored, pruned or reset: four index lookups.

    An assessment computed for one marker holds until it changes; one whose
    marker differs by ``high`` only is brought up to date from the events
    after it (:mod:`.health_changes`).
    """
    e, r, m = t.events.c, t.runs.c, t.meta.c
    high = conn.execute(select(func.max(e.id))).scalar()
    low = conn.execute(select(func.min(e.id))).scalar()
    started = conn.execute(select(func.max(r.started_us))).scalar()
    generation = conn.execute(select(m.value).where(m.key == "generation")).scalar()
    return StoreMarker(int(high or 0), int(low or 0), int(started or 0), str(generation or "0"))
