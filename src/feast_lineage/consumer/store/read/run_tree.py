"""Run trees: a run's root and every run below it, with the runs that never arrived.

A run names its parent, and the root of its tree, in its ``parent`` facet
(``feast_lineage_runs.parent_run_id`` and ``root_run_id``). Both count:

* **The root** of a run is found by one recursive query up the parent links
  (:func:`_chain`). Where the chain stops at a parent that was never stored,
  the root the chain's runs name takes over (and the walk goes on up from
  it); with no root named, the missing parent is the root.
* **The members** are found by one recursive query down from the root
  (:func:`_members`): the runs whose parent or root is the root, then the
  runs below them by parent. So a child that arrived before its parent is
  in its place as soon as the parent arrives, and a run whose parent never
  arrived is found through the root it names.
* **Missing runs**: a parent named by a member but never stored is a node of
  its own (``missing``); its job is the one its children's parent facet
  names. It hangs under the run its children name as their root (its own
  parent is unknown). A missing run is also ``pruned`` when retention has
  run with a horizon later than the earliest start of the runs below it:
  a parent runs while its children do, so one whose children started
  after the horizon was not pruned (it never arrived), and one whose
  children started before it most likely was (its events are gone).

Nothing here depends on the order events arrived in: the links are the
runs' stored ``parent_run_id``/``root_run_id`` (the least id, should a run's
events disagree), and the answer is sorted (depth first, siblings by start
time, then run id).

Access: a run of a namespace the caller may not see stays in the tree as a
node without job, state or times (``visible`` false), so the tree keeps its
shape; nothing of the hidden run leaves this module but its place.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Row, String, bindparam, cast, func, or_, select

from feast_lineage.consumer.store.read.common import NsIds
from feast_lineage.consumer.store.read.dataset_versions import horizon
from feast_lineage.consumer.store.read.run_facets import run_facets
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import namespace_id

# The most runs one tree answers (more: ``truncated``).
MAX_TREE_RUNS = 10_000
# Roots named by runs whose parents never arrived, followed one after another.
_MAX_ROOT_HOPS = 8


@dataclass(frozen=True, slots=True)
class TreeRun:
    """One node of a run tree, in depth-first order."""

    run_id: str
    depth: int  # 0: the root
    tree_parent: str | None  # the node this one hangs under (None: the root)
    visible: bool  # False: a run the caller may not see (no job, state or times)
    missing: bool  # named as a parent or root, never stored
    pruned: bool  # missing, and retention most likely pruned it
    parent_run_id: str | None  # as stored (the parent facet's run)
    root_run_id: str | None  # as stored (the parent facet's root run)
    job_namespace: str | None  # None when hidden (or, for a missing run, unknown)
    job_name: str | None
    state: str | None  # None for a missing or hidden run
    started_us: int | None
    ended_us: int | None
    last_event_us: int | None
    child_count: int  # nodes directly below it in this tree


@dataclass(frozen=True, slots=True)
class RunTree:
    root_run_id: str
    runs: tuple[TreeRun, ...]
    truncated: bool  # more than MAX_TREE_RUNS runs: the earliest started are answered


@dataclass(frozen=True, slots=True)
class _Link:
    run_id: str
    parent_run_id: str | None
    root_run_id: str | None


def _run_id_param(name: str) -> Any:
    # MariaDB types a recursive query's columns by its seed's: keep them VARCHAR(36).
    return cast(bindparam(name, type_=String(36)), String(36))


@lru_cache(maxsize=1)
def _chain_statement() -> Any:
    """The run and every stored run above it by parent links (UNION: a cycle ends)."""
    r = t.runs.c
    seed = select(r.run_id, r.parent_run_id, r.root_run_id).where(
        r.run_id == _run_id_param("start")
    )
    up = seed.cte("up", recursive=True)
    above = t.runs.alias("above")
    up = up.union(
        select(above.c.run_id, above.c.parent_run_id, above.c.root_run_id).join(
            up, above.c.run_id == up.c.parent_run_id
        )
    )
    return select(up.c.run_id, up.c.parent_run_id, up.c.root_run_id)


@lru_cache(maxsize=1)
def _members_statement() -> Any:
    """The runs of the tree of ``root``: those naming it as parent or root, and all below."""
    r = t.runs.c
    root = _run_id_param("root")
    seed = select(r.run_id).where(
        or_(r.run_id == root, r.parent_run_id == root, r.root_run_id == root)
    )
    down = seed.cte("down", recursive=True)
    below = t.runs.alias("below")
    down = down.union(select(below.c.run_id).join(down, below.c.parent_run_id == down.c.run_id))
    j = t.jobs.c
    return (
        select(
            r.run_id,
            r.parent_run_id,
            r.root_run_id,
            r.ns_id,
            r.state,
            r.started_us,
            r.ended_us,
            r.last_event_us,
            j.namespace.label("job_namespace"),
            j.name.label("job_name"),
        )
        .select_from(t.runs.join(t.jobs, t.jobs.c.id == r.job_id))
        .where(r.run_id.in_(select(down.c.run_id)))
        .order_by(r.started_us, r.run_id)
        .limit(bindparam("limit"))
    )


def _chain(conn: Connection, run_id: str) -> dict[str, _Link]:
    rows = conn.execute(_chain_statement(), {"start": run_id}).all()
    return {row.run_id: _Link(row.run_id, row.parent_run_id, row.root_run_id) for row in rows}


def _top(chain: dict[str, _Link]) -> _Link:
    """The highest run of a chain: its parent is not in it (a cycle: the least id)."""
    tops = [link for link in chain.values() if link.parent_run_id not in chain]
    return min(tops, key=lambda link: link.run_id) if tops else chain[min(chain)]


def tree_root(conn: Connection, run_id: str) -> str | None:
    """The root of ``run_id``'s tree (a run id, stored or not); None when the run is not stored."""
    current = run_id
    seen: set[str] = set()
    for _ in range(_MAX_ROOT_HOPS):
        chain = _chain(conn, current)
        if not chain:
            return None if current == run_id else current  # a named root never arrived
        seen |= chain.keys()
        top = _top(chain)
        if top.parent_run_id is None or top.parent_run_id in chain:
            return top.run_id
        # The chain stops at a parent that never arrived: the root its runs name, if any.
        named = [top.root_run_id] + [link.root_run_id for link in chain.values()]
        root = next((r for r in named if r is not None and r not in seen), None)
        if root is None:
            return top.parent_run_id
        current = root
    return current


def _missing_jobs(conn: Connection, children: dict[str, str]) -> dict[str, tuple[str, str] | None]:
    """Missing run id -> (namespace, name) of its job, as a child's ``parent`` facet names it.

    ``children``: missing run id -> one of its stored children (the least id).
    """
    merged = run_facets(conn, set(children.values()))
    out: dict[str, tuple[str, str] | None] = {}
    for missing, child in children.items():
        out[missing] = _named_job(merged[child].facets.get("parent"), missing)
    return out


def _named_job(parent: Any, run_id: str) -> tuple[str, str] | None:
    """The job a parent facet names for ``run_id`` (the parent's or the root's)."""
    if not isinstance(parent, dict):
        return None
    for link in (parent, parent.get("root")):
        if not isinstance(link, dict):
            continue
        run, job = link.get("run"), link.get("job")
        if not (isinstance(run, dict) and isinstance(job, dict)):
            continue
        try:
            named = str(uuid.UUID(str(run.get("runId"))))
        except ValueError:
            continue
        ns, name = job.get("namespace"), job.get("name")
        if named == run_id and isinstance(ns, str) and isinstance(name, str):
            return ns, name
    return None


def _stored(conn: Connection, run_ids: Iterable[str]) -> set[str]:
    wanted = sorted(set(run_ids))
    found: set[str] = set()
    r = t.runs.c
    for start in range(0, len(wanted), 500):
        stmt = select(r.run_id).where(r.run_id.in_(wanted[start : start + 500]))
        found.update(conn.execute(stmt).scalars().all())
    return found


@dataclass(slots=True)
class _Placement:
    """Where each run of a tree hangs, and what the missing runs need."""

    placed: dict[str, str | None] = field(default_factory=dict)  # run -> parent
    child_of_missing: dict[str, str] = field(default_factory=dict)  # missing -> a child
    seen_by_caller: set[str] = field(default_factory=set)  # missing runs a visible member names


def _place(rows: Sequence[Row[Any]], root: str, never: set[str], ns_ids: NsIds) -> _Placement:
    """Each member under its parent; a missing run under the root its children name."""
    by_id = {row.run_id for row in rows}
    out = _Placement()

    def names_missing(missing: str, row: Row[Any]) -> None:
        out.child_of_missing[missing] = min(
            out.child_of_missing.get(missing, row.run_id), row.run_id
        )
        if ns_ids is None or row.ns_id in ns_ids:
            out.seen_by_caller.add(missing)

    for row in rows:
        parent = row.parent_run_id
        if row.run_id == root:
            out.placed[row.run_id] = None
        elif parent in by_id or parent in never:
            out.placed[row.run_id] = parent
        else:
            out.placed[row.run_id] = root
        if parent in never:
            names_missing(parent, row)
        root_named = row.root_run_id
        if root_named is not None and root_named in never and root_named != parent:
            names_missing(root_named, row)
    for missing in never:
        out.placed[missing] = None if missing == root else root
    return out


def run_tree(conn: Connection, run_id: str, ns_ids: NsIds) -> RunTree | None:
    """The tree of ``run_id``; None when the run is not stored or not visible."""
    r = t.runs.c
    own = conn.execute(select(r.ns_id).where(r.run_id == run_id)).first()
    if own is None or (ns_ids is not None and own[0] not in ns_ids):
        return None
    root = tree_root(conn, run_id) or run_id
    rows = list(conn.execute(_members_statement(), {"root": root, "limit": MAX_TREE_RUNS + 1}))
    truncated = len(rows) > MAX_TREE_RUNS
    rows = rows[:MAX_TREE_RUNS]
    by_id = {row.run_id: row for row in rows}
    # Parents named by members but not among them: stored elsewhere, or never arrived.
    named = {row.parent_run_id for row in rows if row.parent_run_id is not None}
    named = named - by_id.keys()
    if root not in by_id:
        named.add(root)
    never = named - _stored(conn, named)
    where = _place(rows, root, never, ns_ids)
    jobs = _missing_jobs(conn, where.child_of_missing) if where.child_of_missing else {}
    pruned_before = horizon(conn) if never else None
    return RunTree(
        root_run_id=root,
        runs=tuple(_depth_first(root, by_id, never, where, jobs, ns_ids, pruned_before)),
        truncated=truncated,
    )


def _depth_first(
    root: str,
    by_id: dict[str, Row[Any]],
    never: set[str],
    where: _Placement,
    jobs: dict[str, tuple[str, str] | None],
    ns_ids: NsIds,
    horizon_us: int | None,
) -> list[TreeRun]:
    """The tree's runs from the root down, siblings by start time.

    ``horizon_us``: the retention horizon, if retention ever ran.
    """
    children: dict[str | None, list[str]] = {}
    for node, parent in where.placed.items():
        children.setdefault(parent, []).append(node)
    # Siblings by start; a missing run by the earliest start of the runs below it.
    starts = {node: row.started_us for node, row in by_id.items()}
    for node, parent in where.placed.items():
        if parent in never and node in starts:
            starts[parent] = min(starts.get(parent, starts[node]), starts[node])

    def order(node: str) -> tuple[int, str]:
        return (starts.get(node, 0), node)

    def pruned(node: str) -> bool:
        return (
            horizon_us is not None and node in never and starts.get(node, horizon_us) < horizon_us
        )

    out: list[TreeRun] = []
    stack: list[tuple[str, int]] = [(root, 0)]
    done: set[str] = set()
    while stack:
        node, depth = stack.pop()
        if node in done:
            continue
        done.add(node)
        below = sorted(children.get(node, ()), key=order)
        parent = where.placed.get(node)
        row = by_id.get(node)
        found = _node(node, depth, parent, row, jobs, ns_ids, where.seen_by_caller, len(below))
        out.append(replace(found, pruned=True) if pruned(node) else found)
        stack.extend((child, depth + 1) for child in reversed(below))
    # Runs in a cycle of parent links above no root: answered under the root.
    for node in sorted(set(where.placed) - done, key=order):
        row = by_id.get(node)
        found = _node(node, 1, root, row, jobs, ns_ids, where.seen_by_caller, 0)
        out.append(replace(found, pruned=True) if pruned(node) else found)
    return out


def _node(
    run_id: str,
    depth: int,
    tree_parent: str | None,
    row: Any,
    jobs: dict[str, tuple[str, str] | None],
    ns_ids: NsIds,
    seen_by_caller: set[str],
    child_count: int,
) -> TreeRun:
    if row is None:  # never arrived: known only by what its children say
        job = jobs.get(run_id)
        if job is not None:
            visible = ns_ids is None or namespace_id(job[0]) in ns_ids
        else:
            visible = run_id in seen_by_caller
        return TreeRun(
            run_id=run_id,
            depth=depth,
            tree_parent=tree_parent,
            visible=visible,
            missing=True,
            pruned=False,
            parent_run_id=None,
            root_run_id=None,
            job_namespace=job[0] if visible and job is not None else None,
            job_name=job[1] if visible and job is not None else None,
            state=None,
            started_us=None,
            ended_us=None,
            last_event_us=None,
            child_count=child_count,
        )
    visible = ns_ids is None or row.ns_id in ns_ids
    return TreeRun(
        run_id=run_id,
        depth=depth,
        tree_parent=tree_parent,
        visible=visible,
        missing=False,
        pruned=False,
        parent_run_id=row.parent_run_id if visible else None,
        root_run_id=row.root_run_id if visible else None,
        job_namespace=row.job_namespace if visible else None,
        job_name=row.job_name if visible else None,
        state=row.state if visible else None,
        started_us=row.started_us if visible else None,
        ended_us=row.ended_us if visible else None,
        last_event_us=row.last_event_us if visible else None,
        child_count=child_count,
    )


def child_count(conn: Connection, run_id: str) -> int:
    """How many stored runs name ``run_id`` as their parent (hidden ones included)."""
    r = t.runs.c
    stmt = select(func.count()).select_from(t.runs).where(r.parent_run_id == run_id)
    return int(conn.execute(stmt).scalar_one())
