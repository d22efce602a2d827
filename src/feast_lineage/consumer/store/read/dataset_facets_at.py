"""A dataset's facets as they stood at an instant: today's rules on the events until then.

The store keeps each dataset facet's latest statement
(``feast_lineage_dataset_facets``). At ``T``, a facet whose latest statement
is by ``T`` is that statement's payload. So is one stated again since with
the same payload, when the store knows it (:func:`stated_then`): the
payload's first statement (``feast_lineage_dataset_facet_values``) is by
``T`` and above the facet's ``other_rank``, above which every statement is
of that payload. So is one whose payloads first stated by ``T`` are one
(:func:`only_payloads`: every statement by then stated it); one with none
was not stated by then. Any other facet stated again since (several
payloads by then, A, B, A among them) is read
from the events that listed the dataset, backward from ``T``: the payload
of the latest of them by then that carried it, ties broken by the event
key as ranks break them (within one event, its outputs' statement after
its inputs', as ingest merges them).

Which events listed a dataset: a RunEvent's or JobEvent's are among its
job's listings (``feast_lineage_io_listings``, one row per event and
direction, keyed by job and rank) whose run listed the dataset
(``feast_lineage_run_io``), for the jobs with an input or output edge to
the dataset (``feast_lineage_edges``, every edge ever stated); a
DatasetEvent's subject is the dataset. A listing's rank names its event
(:func:`event_key`). They are read in windows of event time, the latest
first (the hour before ``T``, then eight times as far back each time),
each window's in rank order, down to the dataset's first event and never
below the retention horizon (a pruned event could have stated what a kept
one did not); at most 4,096 listings are looked at, and a payload is
parsed only when its text names a facet still wanted. What is not found
within those bounds is left out, never shown with another value: a facet
first stated after ``T`` is thus left out once the dataset's listings by
then are read (or the budget is spent).

The ``dataSource`` URI then (``datasource_uri``) follows ingest's rule for
the column, as :data:`URI`: the URI of the latest ``dataSource`` facet by
then that named one (within one event, the first occurrence that names
one). When one ``dataSource`` payload only was stated by then, it is the
URI that payload names, or none.

After a namespace reset: the reset deletes its jobs' events and listings,
not the statements they made of datasets in other namespaces (a stored
latest one stays, as today's answer keeps it, and so does the row of each
payload they stated). The walk answers from the events that remain: as of
an instant after such a statement, the one before it (what a store fed
only the remaining events would answer); a payload the rows know as the
only one by then is answered from them, even if only a deleted event
stated it (the value the dataset had then).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import (
    BindParameter,
    ColumnElement,
    Connection,
    Join,
    and_,
    bindparam,
    func,
    or_,
    select,
)

from feast_lineage import canonical_json
from feast_lineage.consumer.store.engine.meta import FACET_VALUES_FROM_KEY, read_meta
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.as_of import Instant, rank_bound
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import dataset_id
from feast_lineage.uris import strip_credentials

_CHUNK = 500
_STEP = 16  # events fetched at a time, in rank order
_BUDGET = 4096  # listings looked at per dataset at most: a facet further back is left out

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
    (about 2.5 ms a dataset on a store where 20 jobs touch each: :func:`_walk_back`).
    """
    out = DatasetFacetsThen()
    pending: dict[int, set[str]] = {}
    wanted = sorted(set(owners))
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        sole = _stored(conn, chunk, at, out.facets, pending if walk else None, unread)
        if uris:
            _stored_uris(conn, chunk, at, out.facets, out.uris, pending, sole)
    if pending and walk:
        floor = dv.horizon(conn)
        jobs = _jobs(conn, sorted(pending))
        for owner, names in sorted(pending.items()):
            _walk_back(conn, owner, names, jobs.get(owner, []), at, floor, out)
    out.facets = {owner: dict(sorted(f.items())) for owner, f in out.facets.items()}
    return out


def stated_then() -> tuple[Join, ColumnElement[bool]]:
    """The dataset facets joined to their current payload's first statement, and whether
    that payload is the facet's at ``as_of_rank``: its latest statement is by then, or the
    payload was first stated by then above the bound every later statement keeps to."""
    c, v = t.dataset_facets.c, t.dataset_facet_values.c
    joined = t.dataset_facets.outerjoin(
        t.dataset_facet_values,
        and_(v.owner_id == c.owner_id, v.name == c.name, v.blob_id == c.blob_id),
    )
    bound: BindParameter[str] = bindparam("as_of_rank")
    then = or_(c.rank < bound, and_(v.first_rank < bound, v.first_rank > c.other_rank))
    return joined, then


@lru_cache(maxsize=1)
def _facets_statement() -> Any:
    """Owners' facets, with the payload of those known by ``as_of_rank`` (null for the
    others: stated again since with another payload, or first stated after then)."""
    c, b = t.dataset_facets.c, t.facet_blobs.c
    joined, then = stated_then()
    return (
        select(c.owner_id, c.name, b.payload)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
        .select_from(joined.outerjoin(t.facet_blobs, and_(b.id == c.blob_id, then)))
    )


@lru_cache(maxsize=1)
def _payloads_by_then() -> Any:
    """Per (owner, facet) of the given owners and names: how many payloads were first
    stated before ``as_of_rank``, the least of their blob ids (the one, when one) and of
    their first statements' ranks."""
    v = t.dataset_facet_values.c
    return (
        select(v.owner_id, v.name, func.min(v.blob_id), func.count(), func.min(v.first_rank))
        .where(
            v.owner_id.in_(bindparam("owners", expanding=True)),
            v.name.in_(bindparam("names", expanding=True)),
            v.first_rank < bindparam("as_of_rank"),
        )
        .group_by(v.owner_id, v.name)
    )


def only_payloads(
    conn: Connection, unknown: Iterable[tuple[int, str]], at: Instant
) -> dict[tuple[int, str], str | None]:
    """Of facets that :func:`stated_then` does not know at ``at``: (owner, name) -> the
    blob id of the only payload first stated by then, None when there were several.

    A facet absent from the answer was not stated by then at all. One payload: every
    statement of the facet by then stated it (each statement's payload has its first
    statement at or before it, in ``feast_lineage_dataset_facet_values``), so it was
    the facet's then, whatever came after. Several: which of them was stated last by
    then is not in the rows (A, B, A): the events tell it. A store whose rows migration
    0026 derived after a prune lacks the payloads stated only before that prune's
    horizon (``facet_values_from``): one payload first stated before it is not claimed
    (None), as another may have been stated then and since pruned.
    """
    wanted: dict[int, set[str]] = {}
    for owner, name in unknown:
        wanted.setdefault(owner, set()).add(name)
    out: dict[tuple[int, str], str | None] = {}
    floor = _values_floor(conn)
    owners = sorted(wanted)
    for start in range(0, len(owners), _CHUNK):
        chunk = owners[start : start + _CHUNK]
        names = sorted(set().union(*(wanted[o] for o in chunk)))
        params = {"owners": chunk, "names": names, "as_of_rank": at.rank_bound}
        for owner, name, blob, count, first in conn.execute(_payloads_by_then(), params):
            if str(name) in wanted[int(owner)]:
                sole = count == 1 and (floor is None or str(first) >= floor)
                out[(int(owner), str(name))] = str(blob) if sole else None
    return out


def _values_floor(conn: Connection) -> str | None:
    """The least rank above which every statement has its payload's row, or None: all do."""
    value = read_meta(conn, FACET_VALUES_FROM_KEY)
    return None if value is None else rank_bound(int(value) - 1)


def _stored(
    conn: Connection,
    owners: list[int],
    at: Instant,
    found: Facets,
    pending: dict[int, set[str]] | None,
    unread: frozenset[str],
) -> set[int]:
    """The facets known at ``at`` without events (:func:`stated_then`, then
    :func:`only_payloads`); into ``pending``, the names of those that need the events
    (none read when it is None). Returns the owners whose ``dataSource`` was stated with
    one payload only by then."""
    params = {"owners": owners, "as_of_rank": at.rank_bound}
    unknown: list[tuple[int, str]] = []
    for owner, name, payload in conn.execute(_facets_statement(), params):
        if payload is not None:
            found.setdefault(int(owner), {})[str(name)] = str(payload)
        elif name not in unread:
            unknown.append((int(owner), str(name)))
    if not unknown:
        return set()
    only = only_payloads(conn, unknown, at)
    blobs = sorted({blob for blob in only.values() if blob is not None})
    b = t.facet_blobs.c
    stmt = select(b.id, b.payload).where(b.id.in_(bindparam("ids", expanding=True)))
    payloads: dict[str, str] = {}
    for start in range(0, len(blobs), _CHUNK):
        ids = blobs[start : start + _CHUNK]
        payloads.update((str(i), str(p)) for i, p in conn.execute(stmt, {"ids": ids}))
    sole: set[int] = set()
    for (owner, name), blob in sorted(only.items()):
        if blob is not None and blob in payloads:
            found.setdefault(owner, {})[name] = payloads[blob]
            if name == "dataSource":
                sole.add(owner)
        elif pending is not None:
            pending.setdefault(owner, set()).add(name)
    return sole


def _stored_uris(
    conn: Connection,
    owners: list[int],
    at: Instant,
    facets: Facets,
    found: dict[int, str],
    pending: dict[int, set[str]],
    sole: set[int],
) -> None:
    """The URI column when the facet it came from is by ``at``, or is the ``dataSource``
    facet known then (in ``facets``, read by :func:`_stored`) and names that URI; the URI
    that facet names (or none) when it was the only payload stated by then (``sole``);
    else the URI is wanted."""
    d = t.datasets.c
    stmt = select(d.id, d.datasource_uri, d.uri_rank).where(
        d.id.in_(bindparam("owners", expanding=True)), d.uri_rank.is_not(None)
    )
    bound = at.rank_bound
    for owner, uri, rank in conn.execute(stmt, {"owners": owners}):
        source = facets.get(int(owner), {}).get("dataSource")
        named = _source_uri(orjson.loads(source)) if source is not None else None
        if owner in sole:  # every dataSource statement by then named this URI (or none)
            if named is not None:
                found[int(owner)] = named
        elif rank < bound or (named is not None and named == uri):
            found[int(owner)] = str(uri)
        else:
            pending.setdefault(int(owner), set()).add(URI)


def _source_uri(source: Any) -> str | None:
    """The URI a ``dataSource`` facet names, as ingest keeps it (no credentials); else None."""
    uri = source.get("uri") if isinstance(source, dict) else None
    return strip_credentials(uri) if isinstance(uri, str) and uri else None


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
def _listings() -> Any:
    """The given jobs' listings ranked in a window, latest first, at most ``most``.

    Both directions of each job: one range seek of the primary key per job and direction,
    then a sort of what the window holds (small: the window grows from an hour).
    """
    li = t.io_listings.c
    return (
        select(li.rank, li.run_key, li.direction)
        .where(li.job_id.in_(bindparam("jobs", expanding=True)))
        .where(li.direction.in_(("input", "output")))
        .where(li.rank >= bindparam("low"), li.rank < bindparam("high"))
        .order_by(li.rank.desc())
        .limit(bindparam("most"))
    )


@lru_cache(maxsize=1)
def _listed_runs() -> Any:
    """Of the given runs, those that listed the dataset, with the direction they listed it in."""
    io = t.run_io.c
    return select(io.run_id, io.direction).where(
        io.run_id.in_(bindparam("runs", expanding=True)), io.dataset_id == bindparam("dataset")
    )


@lru_cache(maxsize=1)
def _declared() -> Any:
    """Keys of the dataset's DatasetEvents in a window of event times."""
    e = t.events.c
    return select(e.event_key).where(
        e.subject_id == bindparam("dataset"),
        e.kind == "dataset",
        e.event_time_us >= bindparam("low_us"),
        e.event_time_us < bindparam("high_us"),
    )


_HOUR_US = 3_600_000_000
_GROWTH = 8  # each window reaches eight times as far back as the one before


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

    Windows of event time, the latest first (an hour before ``at``, then eight times as
    far back each time), down to the dataset's first event or the retention horizon:
    each window's events that listed the dataset are taken in rank order, so every one
    is taken after all that rank above it. At most :data:`_BUDGET` listings are looked
    at in all: what is not found by then is left out.
    """
    first = conn.scalar(select(t.datasets.c.created_us).where(t.datasets.c.id == owner))
    bottom = max(int(first) if first is not None else at.time_us, floor or -(2**62))
    high_us, span, budget = at.time_us + 1, _HOUR_US, _BUDGET
    while names and high_us > bottom and budget > 0:
        low_us = max(high_us - span, bottom)
        ranks, budget = _window(conn, owner, jobs, low_us, high_us, budget)
        for start in range(0, len(ranks), _STEP):
            _take(conn, owner, ranks[start : start + _STEP], names, out)
            if not names:
                return
        high_us, span = low_us, span * _GROWTH


def _window(
    conn: Connection, owner: int, jobs: list[int], low_us: int, high_us: int, budget: int
) -> tuple[list[str], int]:
    """The ranks of the events in [low_us, high_us) that listed ``owner``, latest first,
    and what is left of the budget (0 when the window held more listings than it)."""
    found: set[str] = set()
    low, high = rank_bound(low_us - 1), rank_bound(high_us - 1)
    if jobs:
        params = {"jobs": jobs, "low": low, "high": high, "most": budget}
        rows = conn.execute(_listings(), params).all()
        budget = 0 if len(rows) >= budget else budget - len(rows)
        if budget == 0 and rows:  # what lies below the last one is not looked at
            rows = [r for r in rows if r.rank > rows[-1].rank]
        runs = sorted({str(r.run_key) for r in rows})
        listed: set[tuple[str, str]] = set()
        for start in range(0, len(runs), _CHUNK):
            params2 = {"runs": runs[start : start + _CHUNK], "dataset": owner}
            listed.update((str(r), str(d)) for r, d in conn.execute(_listed_runs(), params2))
        found.update(str(r.rank) for r in rows if (str(r.run_key), str(r.direction)) in listed)
    declared = {"dataset": owner, "low_us": low_us, "high_us": high_us}
    found.update(_rank(str(key)) for key in conn.scalars(_declared(), declared))
    if budget == 0 and found and jobs:
        floor_rank = min(str(r.rank) for r in rows) if rows else high
        found = {r for r in found if r >= floor_rank}
    return sorted(found, reverse=True), budget


def _rank(key: str) -> str:
    """The rank ingest gave the event keyed ``key``."""
    return f"{int(key[:16], 16):020d}{key[16:]}"


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
        event = orjson.loads(text)
        stated = _stated(event, kind, owner)
        uri = _uri(event, kind, owner) if URI in names else None
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


def _occurrences(event: Any, kind: str, owner: int) -> list[dict[str, Any]]:
    """Where ``event`` lists dataset ``owner``, in ingest's order (inputs, then outputs)."""
    if kind == "dataset":
        listed = [event.get("dataset")]
    else:
        listed = [*(event.get("inputs") or []), *(event.get("outputs") or [])]
    return [
        ds
        for ds in listed
        if isinstance(ds, dict) and dataset_id(ds["namespace"], ds["name"]) == owner
    ]


def _stated(event: Any, kind: str, owner: int) -> dict[str, Any]:
    """The facets ``event`` stated of dataset ``owner``: a later occurrence's over an
    earlier one's, as ingest merges the facet rows of one event."""
    out: dict[str, Any] = {}
    for ds in _occurrences(event, kind, owner):
        facets = ds.get("facets")
        if isinstance(facets, dict):
            out.update(facets)
    return out


def _uri(event: Any, kind: str, owner: int) -> str | None:
    """The URI the event gave the dataset's ``datasource_uri``: the first occurrence's
    ``dataSource`` that names one (ingest keeps the first of one rank), credentials
    stripped; None when none names one."""
    for ds in _occurrences(event, kind, owner):
        facets = ds.get("facets")
        uri = _source_uri(facets.get("dataSource") if isinstance(facets, dict) else None)
        if uri is not None:
            return uri
    return None
