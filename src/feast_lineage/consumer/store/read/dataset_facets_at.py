"""A dataset's facets as they stood at an instant: today's rules on the events until then.

The store keeps each dataset facet's latest statement
(``feast_lineage_dataset_facets``). At ``T``, a facet whose latest statement
is by ``T`` is that statement's payload. One stated again since is read
from the events that listed the dataset, backward from ``T``: the payload
of the latest of them by then that carried it, ties broken by the event
key as ranks break them (within one event, its outputs' statement after
its inputs', as ingest merges them).

Which events listed a dataset: a RunEvent's or JobEvent's are among its
job's listings (``feast_lineage_io_listings``, one row per event and
direction, keyed by job and rank) whose run listed the dataset
(``feast_lineage_run_io``), for the jobs with an input or output edge to
the dataset (``feast_lineage_edges``, every edge ever stated, with its
earliest time); a DatasetEvent's subject is the dataset. A listing's rank
names its event (:func:`event_key`). Both are read latest first, 16 at a
time and twice as many each time, never below the retention horizon (a
pruned event could have stated what a kept one did not) and at most 4,096
a dataset; a payload is parsed only when its text names a facet still
wanted. What is not found within those bounds is left out, never shown
with another value: a facet first stated after ``T`` is thus left out
after its dataset's listings by then are read.

The ``dataSource`` URI then (``datasource_uri``) follows the same rule, as
:data:`URI`: the URI of the latest ``dataSource`` facet by then that named
one (ingest's rule for the column).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import Connection, and_, bindparam, exists, or_, select

from feast_lineage import canonical_json
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant, rank_bound
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import dataset_id
from feast_lineage.uris import strip_credentials

_CHUNK = 500
_STEP = 16  # events read at first, then twice as many each time
_MAX_STEP = 512
_BUDGET = 4096  # events read back per dataset and answer at most: a facet further back is left out

URI = "\x00dataSource uri"  # not a facet name a producer can send: the URI then, wanted as one

Facets = dict[int, dict[str, str]]  # dataset id -> {facet name: canonical JSON}


@dataclass(slots=True)
class DatasetFacetsThen:
    """Datasets' facets at an instant (stored JSON by name) and their ``dataSource`` URIs."""

    facets: Facets = field(default_factory=dict)
    uris: dict[int, str] = field(default_factory=dict)


def event_key(rank: str) -> str:
    """The key of the event ingest ranked ``rank`` (time in decimal, then the content digest)."""
    return f"{int(rank[:20]):016x}{rank[20:]}"


def dataset_facets_at(
    conn: Connection,
    owners: Iterable[int],
    at: Instant,
    *,
    uris: bool = False,
    unread: frozenset[str] = frozenset(),
    walk: bool = True,
) -> DatasetFacetsThen:
    """The facets of ``owners`` (dataset ids) at ``at``; with ``uris``, their URIs then too.

    ``unread``: facets not read from events when stated again since (left out: the
    caller has them from elsewhere, as a node's schema from its version then).
    ``walk``: False to read no event at all: what was stated again since is left out
    (about 10 ms a dataset on a store where 20 jobs touch each: :func:`_walk_back`).
    """
    out = DatasetFacetsThen()
    pending: dict[int, set[str]] = {}
    wanted = sorted(set(owners))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        _stored(conn, chunk, at, out.facets, pending, unread)
        if uris:
            _stored_uris(conn, chunk, at, out.uris, pending)
    if pending and walk:
        floor = dv.horizon(conn)
        jobs = _jobs(conn, sorted(pending))
        for owner, names in sorted(pending.items()):
            _walk_back(conn, owner, names, jobs.get(owner, []), at, floor, out)
    out.facets = {owner: dict(sorted(f.items())) for owner, f in out.facets.items()}
    return out


def _stored(
    conn: Connection,
    owners: list[int],
    at: Instant,
    found: Facets,
    pending: dict[int, set[str]],
    unread: frozenset[str],
) -> None:
    """The facets stated last by ``at`` (their stored payload); the names stated since."""
    c, b = t.dataset_facets.c, t.facet_blobs.c
    stmt = (
        select(c.owner_id, c.name, c.rank, b.payload)
        .join(t.facet_blobs, b.id == c.blob_id)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
    )
    bound = at.rank_bound
    for owner, name, rank, payload in conn.execute(stmt, {"owners": owners}):
        if rank < bound:
            found.setdefault(int(owner), {})[str(name)] = str(payload)
        elif name not in unread:
            pending.setdefault(int(owner), set()).add(str(name))


def _stored_uris(
    conn: Connection,
    owners: list[int],
    at: Instant,
    found: dict[int, str],
    pending: dict[int, set[str]],
) -> None:
    """The URI column when the facet it came from is by ``at``; else the URI is wanted."""
    d = t.datasets.c
    stmt = select(d.id, d.datasource_uri, d.uri_rank).where(
        d.id.in_(bindparam("owners", expanding=True)), d.uri_rank.is_not(None)
    )
    bound = at.rank_bound
    for owner, uri, rank in conn.execute(stmt, {"owners": owners}):
        if rank < bound:
            found[int(owner)] = str(uri)
        else:
            pending.setdefault(int(owner), set()).add(URI)


def _jobs(conn: Connection, datasets: list[int]) -> dict[int, list[int]]:
    """Dataset id -> the jobs that ever read or wrote it.

    Not only those whose edge is by the instant: a store written before session 8 keeps an
    edge's first-arrival time, which can be later than its earliest statement.
    """
    e = t.lineage_edges.c
    stmt = select(e.src_id, e.dst_id, e.edge_type).where(
        or_(
            and_(e.src_id.in_(bindparam("ids", expanding=True)), e.edge_type == "input"),
            and_(e.dst_id.in_(bindparam("ids", expanding=True)), e.edge_type == "output"),
        ),
    )
    out: dict[int, set[int]] = {}
    for start in range(0, len(datasets), _CHUNK):
        ids = datasets[start : start + _CHUNK]
        for src, dst, kind in conn.execute(stmt, {"ids": ids}):
            dataset, job = (src, dst) if kind == "input" else (dst, src)
            out.setdefault(int(dataset), set()).add(int(job))
    return {d: sorted(jobs) for d, jobs in out.items()}


@lru_cache(maxsize=1)
def _listed() -> Any:
    """Ranks of the listings of the given jobs whose run listed the dataset, latest first."""
    li, io = t.io_listings.c, t.run_io.c
    listed = exists().where(
        io.run_id == li.run_key, io.dataset_id == bindparam("dataset"), io.direction == li.direction
    )
    return (
        select(li.rank)
        .where(li.job_id.in_(bindparam("jobs", expanding=True)))
        .where(li.rank < bindparam("below"), li.rank >= bindparam("floor"), listed)
        .order_by(li.rank.desc())
        .limit(bindparam("step"))
    )


@lru_cache(maxsize=1)
def _declared() -> Any:
    """Keys of the DatasetEvents of the dataset, latest first."""
    e = t.events.c
    return (
        select(e.event_key)
        .where(e.subject_id == bindparam("dataset"), e.kind == "dataset")
        .where(e.event_time_us <= bindparam("as_of_us"), e.event_time_us >= bindparam("floor_us"))
        .where(e.event_key < bindparam("below_key"))  # keys order as ranks do
        .order_by(e.event_key.desc())
        .limit(bindparam("step"))
    )


def _walk_back(
    conn: Connection,
    owner: int,
    names: set[str],
    jobs: list[int],
    at: Instant,
    floor: int | None,
    out: DatasetFacetsThen,
) -> None:
    """Read the events that listed ``owner`` by ``at``, latest first, until ``names`` are.

    Events come from two streams (listings, DatasetEvents), each read ``step`` at a time;
    an event is taken only when no unread one of the other stream can rank above it.
    """
    floor_rank = rank_bound(floor - 1) if floor is not None else ""
    floor_us = floor if floor is not None else -(2**62)
    below = at.rank_bound
    below_key = event_key(below)  # (the bound has no digest: below every key of a later time)
    step, read = _STEP, 0
    listed: list[str] = []  # ranks, latest first
    declared: list[str] = []
    listed_done = not jobs
    declared_done = False
    while names and read < _BUDGET:
        if not listed and not listed_done:
            params = {"jobs": jobs, "dataset": owner, "below": below, "floor": floor_rank}
            listed = [str(r) for r in conn.scalars(_listed(), {**params, "step": step})]
            listed_done = len(listed) < step
            if listed:
                below = listed[-1]
        if not declared and not declared_done:
            params2 = {"dataset": owner, "below_key": below_key, "floor_us": floor_us}
            params2 |= {"as_of_us": at.time_us, "step": step}
            declared = [_rank(str(k)) for k in conn.scalars(_declared(), params2)]
            declared_done = len(declared) < step
            if declared:
                below_key = event_key(declared[-1])
        # Take what ranks above every unread event: a stream not yet read to its end may
        # hold, past what it gave, events ranked below its last one only.
        taken = _merge(listed, declared, listed_done, declared_done)
        if not taken:
            return
        listed = [r for r in listed if r not in taken]
        declared = [r for r in declared if r not in taken]
        _take(conn, owner, sorted(taken, reverse=True), names, out)
        read += len(taken)
        step = min(2 * step, _MAX_STEP)


def _rank(key: str) -> str:
    """The rank ingest gave the event keyed ``key``."""
    return f"{int(key[:16], 16):020d}{key[16:]}"


def _merge(
    listed: list[str], declared: list[str], listed_done: bool, declared_done: bool
) -> set[str]:
    """The ranks of both lists that rank above what either stream has not given yet."""
    lows = []
    if listed and not listed_done:
        lows.append(listed[-1])
    if declared and not declared_done:
        lows.append(declared[-1])
    low = max(lows) if lows else ""
    return {r for r in (*listed, *declared) if r >= low}


def _take(
    conn: Connection, owner: int, ranks: Sequence[str], names: set[str], out: DatasetFacetsThen
) -> None:
    """Resolve wanted names from the events ranked ``ranks`` (latest first)."""
    keys = [event_key(r) for r in ranks]
    e = t.events.c
    stmt = select(e.event_key, e.kind, e.payload).where(
        e.event_key.in_(bindparam("keys", expanding=True))
    )
    payloads = {str(k): (str(kind), str(p)) for k, kind, p in conn.execute(stmt, {"keys": keys})}
    for key in keys:
        if not names:
            return
        found = payloads.get(key)
        if found is None:  # pruned, or reset: what it stated is not known
            names.clear()
            return
        kind, text = found
        if not any(_key(n) in text for n in names):  # (not parsed when it names none)
            continue
        stated = _stated(orjson.loads(text), kind, owner)
        uri = _uri(stated) if URI in names else None
        if uri is not None:
            out.uris[owner] = uri
            names.discard(URI)
        for name in [n for n in names if n in stated]:
            out.facets.setdefault(owner, {})[name] = canonical_json.dumps_str(stated[name])
            names.discard(name)


@lru_cache(maxsize=1024)
def _key(name: str) -> str:
    """How a facet named ``name`` is keyed in canonical JSON text."""
    return canonical_json.dumps_str("dataSource" if name == URI else name) + ":"


def _stated(event: Any, kind: str, owner: int) -> dict[str, Any]:
    """The facets ``event`` stated of dataset ``owner`` (outputs' after inputs', as ingest)."""
    if kind == "dataset":
        listed = [event.get("dataset")]
    else:
        listed = [*(event.get("inputs") or []), *(event.get("outputs") or [])]
    out: dict[str, Any] = {}
    for ds in listed:
        if not isinstance(ds, dict) or dataset_id(ds["namespace"], ds["name"]) != owner:
            continue
        facets = ds.get("facets")
        if isinstance(facets, dict):
            out.update(facets)
    return out


def _uri(facets: dict[str, Any]) -> str | None:
    """The URI a ``dataSource`` facet names, as ingest keeps it; None when it names none."""
    source = facets.get("dataSource")
    uri = source.get("uri") if isinstance(source, dict) else None
    return strip_credentials(uri) if isinstance(uri, str) and uri else None
