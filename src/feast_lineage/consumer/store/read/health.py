"""What health is computed from: failed runs, recent writes, one step of the current graph.

Health is computed at read time from rows ingest writes anyway (runs,
dataset versions, edges, symlinks): nothing is maintained at ingest
(docs/performance.md, Health). These reads are unscoped on purpose: a
cause in a hidden namespace still puts a visible node at risk, and the
service names it only as "a hidden upstream".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any, NamedTuple

from sqlalchemy import Connection, and_, bindparam, func, literal, or_, select, union_all

from feast_lineage.consumer.store.read.aliases import current_symlink
from feast_lineage.consumer.store.read.explicit import current_explicit_edge
from feast_lineage.consumer.store.read.graph import FOLLOWED_EDGES, NodeKind, current_edge
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000
FAILED_STATES = ("FAIL", "ABORT")


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


def _chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), _CHUNK):
        yield wanted[start : start + _CHUNK]


def failed_jobs(conn: Connection) -> list[FailedRun]:
    """Every job whose latest ended run failed or was aborted, with no later COMPLETE."""
    r = t.runs.c
    ended = func.coalesce(r.ended_us, r.last_event_us)
    latest: dict[int, FailedRun] = {}
    stmt = select(r.job_id, r.run_id, r.state, ended).where(r.state.in_(FAILED_STATES))
    for job, run, state, end in conn.execute(stmt).all():
        known = latest.get(job)
        if known is None or (end, run) > (known.ended_us, known.run_id):
            latest[job] = FailedRun(int(job), run, state, int(end))
    for chunk in _chunks(latest):
        done = (
            select(r.job_id, func.max(ended))
            .where(r.job_id.in_(chunk), r.state == "COMPLETE")
            .group_by(r.job_id)
        )
        for job, end in conn.execute(done).all():
            if end is not None and int(end) >= latest[int(job)].ended_us:
                del latest[int(job)]
    return sorted(latest.values(), key=lambda f: (-f.ended_us, f.job_id))


@lru_cache(maxsize=1)
def _writes_statement() -> Any:
    v = t.dataset_versions.c
    ids: Any = bindparam("ids", expanding=True)
    wrote = or_(v.writes == 1, and_(v.event_type.is_(None), v.run_id.is_(None)))
    ranked = (
        select(
            v.dataset_id,
            v.time_us,
            func.row_number().over(partition_by=v.dataset_id, order_by=v.time_us.desc()).label("n"),
        )
        .where(v.dataset_id.in_(ids), wrote)
        .subquery("ranked")
    )
    keep: Any = bindparam("keep")
    return (
        select(ranked.c.dataset_id, ranked.c.time_us)
        .where(ranked.c.n <= keep)
        .order_by(ranked.c.dataset_id, ranked.c.time_us.desc())
    )


def recent_writes(
    conn: Connection, dataset_ids: Collection[int], keep: int
) -> dict[int, list[int]]:
    """Dataset id -> the times of its latest ``keep`` writes, newest first.

    A write: a COMPLETE run listing it as an output, or a DatasetEvent
    stating a lifecycle change. Datasets never written are left out.
    """
    out: dict[int, list[int]] = {}
    for chunk in _chunks(dataset_ids):
        for did, time_us in conn.execute(_writes_statement(), {"ids": chunk, "keep": keep}):
            out.setdefault(int(did), []).append(int(time_us))
    return out


def written_datasets(conn: Connection) -> list[int]:
    """Every dataset with at least one write."""
    v = t.dataset_versions.c
    d = t.datasets.c
    wrote = or_(v.writes == 1, and_(v.event_type.is_(None), v.run_id.is_(None)))
    written = select(v.dataset_id).where(v.dataset_id == d.id, wrote).exists()
    return [int(i) for i in conn.execute(select(d.id).where(written)).scalars()]


@lru_cache(maxsize=2)
def _steps_statement(downstream: bool) -> Any:
    """One step of the walk of :mod:`.graph` from each of ``ids``, unscoped."""
    ids: Any = bindparam("ids", expanding=True)
    e = t.lineage_edges.alias("e")
    x = t.explicit_edges.alias("x")
    s1 = t.dataset_symlinks.alias("s1")
    s2 = t.dataset_symlinks.alias("s2")
    near, far = (e.c.src_id, e.c.dst_id) if downstream else (e.c.dst_id, e.c.src_id)
    x_near, x_far = (x.c.src_id, x.c.dst_id) if downstream else (x.c.dst_id, x.c.src_id)
    one, zero = literal(1), literal(0)
    return union_all(
        select(near, far, one).where(
            near.in_(ids), e.c.edge_type.in_(FOLLOWED_EDGES), current_edge(e)
        ),
        select(x_near, x_far, one).where(x_near.in_(ids), current_explicit_edge(x)),
        select(s1.c.dataset_id, s1.c.alias_id, zero).where(
            s1.c.dataset_id.in_(ids), current_symlink(s1)
        ),
        select(s2.c.alias_id, s2.c.dataset_id, zero).where(
            s2.c.alias_id.in_(ids), current_symlink(s2)
        ),
    )


def steps(conn: Connection, ids: Collection[int], *, downstream: bool) -> list[Step]:
    """The current graph's steps out of ``ids`` (lineage, explicit edges, symlinks either way)."""
    out: list[Step] = []
    for chunk in _chunks(ids):
        rows = conn.execute(_steps_statement(downstream), {"ids": chunk}).all()
        out.extend(Step(int(a), int(b), int(c)) for a, b, c in rows)
    return out


def node_info(conn: Connection, ids: Collection[int]) -> dict[int, NodeInfo]:
    """Id -> the job or dataset (any namespace; aliases never seen as datasets are left out)."""
    j, d = t.jobs.c, t.datasets.c
    out: dict[int, NodeInfo] = {}
    for chunk in _chunks(ids):
        jobs = select(j.id, literal("job"), j.ns_id, j.namespace, j.name, literal(None))
        datasets = select(d.id, literal("dataset"), d.ns_id, d.namespace, d.name, d.feast_type)
        stmt = union_all(jobs.where(j.id.in_(chunk)), datasets.where(d.id.in_(chunk)))
        for row in conn.execute(stmt).all():
            out[int(row[0])] = NodeInfo(int(row[0]), row[1], int(row[2]), row[3], row[4], row[5])
    return out


def feast_datasets(conn: Connection, feast_types: Collection[str]) -> list[NodeInfo]:
    """Every dataset standing for a Feast object of one of ``feast_types``."""
    d = t.datasets.c
    stmt = select(d.id, literal("dataset"), d.ns_id, d.namespace, d.name, d.feast_type).where(
        d.feast_type.in_(sorted(feast_types))
    )
    return [NodeInfo(int(r[0]), r[1], int(r[2]), r[3], r[4], r[5]) for r in conn.execute(stmt)]


def latest_writing_runs(conn: Connection, dataset_ids: Collection[int]) -> dict[int, bytes]:
    """Dataset id -> the run (16 bytes) of its latest write by a COMPLETE run."""
    v = t.dataset_versions.c
    out: dict[int, tuple[int, bytes]] = {}
    for chunk in _chunks(dataset_ids):
        stmt = select(v.dataset_id, v.time_us, v.run_id).where(
            v.dataset_id.in_(chunk), v.writes == 1, v.run_id.is_not(None)
        )
        for did, time_us, run in conn.execute(stmt).all():
            known = out.get(int(did))
            if known is None or time_us > known[0]:
                out[int(did)] = (int(time_us), bytes(run))
    return {did: run for did, (_, run) in out.items()}
