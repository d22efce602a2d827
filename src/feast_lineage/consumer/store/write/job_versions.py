"""Job versions: each run's (or JobEvent's) parts, merged as events arrive, and its version.

A job's version is what defines it: the set of datasets it reads and
writes (each named by the table it belongs to, so a partition that moves
every run does not mint a version a run: see
:mod:`feast_lineage.consumer.intake.job_version_parts`), its ``sourceCode``,
``sql`` and ``sourceCodeLocation`` facets and its ``jobType``.

A run's *parts* are what its events listed and carried: the datasets, each
with its table (from the batch's ``run_io`` and datasets, and
:class:`~.rows.JobVersionParts` where the table is another dataset), and
per source facet the (rank, digest) of the latest event carrying it. The
parts of two sets of events merge by a union and, per facet, the highest
rank: commutative, associative and idempotent, so a run's parts do not
depend on the order its events arrive in or on repeats. Each run keeps its
merged parts in its ``feast_lineage_run_versions`` row (``parts``, in one
canonical text: :meth:`RunParts.to_json`), so a transaction reads each
touched run's row once (with its start time, in one statement), merges in
what the transaction holds, and writes the row back only if it changed:
no read of all the run's parts, no row per part. A version's id is the
digest of its content and job; its row is written once, and goes when no
run runs it any more (a run's partial state before its last event), so the
tables hold the same rows whatever the order. "Current" and "first seen"
are derived at read time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypedDict

from sqlalchemy import BindParameter, Connection, Select, delete, exists, select

from feast_lineage import canonical_json
from feast_lineage.consumer.store.engine.dialect import insert_ignore, upsert
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.job_version_content import text_version_id
from feast_lineage.consumer.store.write.cache import KnownRun, WriteCache
from feast_lineage.consumer.store.write.rows import JobVersionParts, RowBatch

# The job facets that define a version, besides its inputs and outputs.
SOURCE_FACETS = ("sourceCode", "sql", "sourceCodeLocation", "jobType")

_CHUNK = 1000

# A dataset a run listed: (direction, dataset id, its table's id, the table's namespace, name).
IoPart = tuple[str, int, int, str, str]


class JobSourceRow(TypedDict):
    """A source facet's payload (without ``_producer``, ``_schemaURL``), by its digest."""

    job_id: int
    digest: str
    payload: str  # canonical JSON


def source_payload(value: Any) -> Any:
    """A source facet as it counts: without its ``_`` keys; None when deleted or empty.

    An upgraded client (a new ``_producer``) does not change what the job does.
    """
    if not isinstance(value, dict):
        return value
    if value.get("_deleted") is True:
        return None
    kept = {k: v for k, v in value.items() if not k.startswith("_")}
    return kept or None


class Owner(NamedTuple):
    """Whose run a key is: its job, and for a JobEvent its time (a run's is its start)."""

    job_id: int
    ns_id: int
    event_time_us: int | None  # None for a run: its start time is read from the runs table


@dataclass(slots=True)
class RunParts:
    """What a run's (or a JobEvent's) events listed and carried: the makings of its version."""

    io: set[IoPart] = field(default_factory=set)
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (rank, digest)

    def add_source(self, name: str, rank: str, digest: str) -> None:
        have = self.sources.get(name)
        if have is None or rank > have[0]:
            self.sources[name] = (rank, digest)

    def add_stored(self, text: str) -> None:
        """Merge in the parts stored as ``text`` (:meth:`to_json`)."""
        stored = canonical_json.loads(text)
        for direction, did, gid, gns, gname in stored["io"]:
            self.io.add((direction, int(did), int(gid), gns, gname))
        for name, (rank, digest) in stored["sources"].items():
            self.add_source(name, rank, digest)

    def to_json(self) -> str:
        """The canonical text of these parts: equal parts, equal text.

        A dataset that one event names by its table and another by itself
        (one sent its symlinks, one did not) counts as the table: only the
        table is kept, which merges to the same answer.
        """
        return canonical_json.dumps_str({"io": sorted(_named(self.io)), "sources": self.sources})

    def content_json(self) -> str:
        """The text of the version these parts define (:class:`.VersionContent`'s)."""
        inputs: set[tuple[str, str]] = set()
        outputs: set[tuple[str, str]] = set()
        for direction, _did, _gid, gns, gname in _named(self.io):
            (inputs if direction == "input" else outputs).add((gns, gname))
        return canonical_json.dumps_str(
            {
                "inputs": sorted(inputs),
                "outputs": sorted(outputs),
                # A deleted facet (digest "") is absent, unless a later event sends it again.
                "sources": {name: d for name, (_, d) in self.sources.items() if d},
            }
        )


def _named(io: Iterable[IoPart]) -> set[IoPart]:
    """``io`` less each dataset's own entry where another names its table."""
    tabled = {(p[0], p[1]) for p in io if p[2] != p[1]}
    if not tabled:
        return set(io)
    return {p for p in io if p[2] != p[1] or (p[0], p[1]) not in tabled}


def gather(d: RowBatch) -> dict[str, tuple[Owner, RunParts]]:
    """Each run (and JobEvent) of ``d`` with its owner and the parts ``d`` holds of it."""
    owners: dict[str, Owner] = {}
    for run in d.runs:  # a row per event: the last one's job counts, as a merged run's
        owners[run["run_id"]] = Owner(run["job_id"], run["ns_id"], None)
    for event in d.events:
        if event["kind"] == "job":
            owners[event["event_key"]] = Owner(
                event["subject_id"], event["ns_id"], event["event_time_us"]
            )
    runs = {key: (owner, RunParts()) for key, owner in owners.items()}
    for key, did, direction in d.run_io:
        found = runs.get(key)
        if found is not None:
            ds = d.datasets[did]
            found[1].io.add((direction, did, did, ds["namespace"], ds["name"]))
    for key, direction, did, gid, gns, gname in d.job_versions.tables:
        found = runs.get(key)
        if found is not None:
            found[1].io.add((direction, did, gid, gns, gname))
    for (key, name), (rank, digest) in d.job_versions.sources.items():
        found = runs.get(key)
        if found is not None:
            found[1].add_source(name, rank, digest)
    return runs


Rows = Sequence[Mapping[str, Any]]
Execute = Callable[[str, Callable[[], Any], Rows], int]
# (statement key, a query of bound parameters, their values) -> rows
Fetch = Callable[
    [str, Callable[[list[BindParameter[Any]]], Any], Sequence[Any]], list[Sequence[Any]]
]


class Stored(NamedTuple):
    """A run's row before this transaction (Nones where it had none), and its start."""

    version_id: str | None
    time_us: int | None
    parts: str | None
    started_us: int | None  # a run's, from the runs table (None for a JobEvent)
    start_event_us: int | None = None  # a run's START time, None before one is stored


def source_rows(
    parts: JobVersionParts, known: Callable[[tuple[int, str]], bool]
) -> list[JobSourceRow]:
    """The source payload rows of ``parts`` the store may lack (``known``: those it has)."""
    return [
        {
            "job_id": job,
            "digest": digest,
            "payload": p
            if isinstance(p, str)
            else canonical_json.dumps_str(source_payload(p.facet)),
        }
        for (job, digest), p in parts.payloads.items()
        if not known((job, digest))
    ]


def write_job_versions(
    conn: Connection, d: RowBatch, ex: Execute, fetch: Fetch, cache: WriteCache
) -> None:
    """Merge ``d``'s parts into each touched run's and store its version (runs written first).

    ``ex`` and ``fetch`` run statements (:mod:`.batch`); ``cache`` knows
    the source payloads stored and recent runs' parts (:class:`.KnownRun`):
    a run whose events here add nothing to them is neither read nor written.
    """
    cache.pending_run_parts = {}
    ex(
        "job_sources",
        lambda: insert_ignore(conn, t.job_sources, ["job_id", "digest"]),
        source_rows(d.job_versions, cache.job_sources.__contains__),
    )
    runs = gather(d)
    starts = _start_events(d)
    keys = sorted(
        key
        for key, (owner, parts) in runs.items()
        if owner.event_time_us is not None
        or not adds_nothing(cache.run_parts.get(key), parts, starts.get(key))
    )
    for start in range(0, len(keys), _CHUNK):
        chunk = {k: runs[k] for k in keys[start : start + _CHUNK]}
        stored = _stored(fetch, chunk)
        versions, assigned, replaced = merge_runs(chunk, stored)
        _note_known(cache, chunk, stored)
        ex("job_versions", lambda: insert_ignore(conn, t.job_versions, ["id"]), versions)
        ex(
            "run_versions",
            lambda: upsert(conn, t.run_versions, ["run_key"], _run_version_set),
            assigned,
        )
        _drop_unran(conn, replaced)


def adds_nothing(known: KnownRun | None, parts: RunParts, start_event_us: int | None) -> bool:
    """Whether a run's events of this transaction leave its stored row as it is.

    ``known``: the run's parts and START time as this process stored or
    read them (the store's hold at least these parts, and a START at or
    before it); ``parts`` and ``start_event_us``: what the transaction
    adds (the least START time among its rows of the run, if any).
    """
    if known is None or not parts.io <= known.io:
        return False
    if start_event_us is not None and start_event_us < known.start_event_us:
        return False  # an earlier START: the run's start, so its version's time, moves
    sources = known.sources
    for name, (rank, _digest) in parts.sources.items():
        have = sources.get(name)
        if have is None or have[0] < rank:
            return False
    return True


def _start_events(d: RowBatch) -> dict[str, int]:
    """Each run of ``d`` with a START: the least START time among its rows."""
    starts: dict[str, int] = {}
    for run in d.runs:
        start = run["start_event_us"]
        if start is not None:
            key = run["run_id"]
            have = starts.get(key)
            starts[key] = start if have is None else min(have, start)
    return starts


def _note_known(
    cache: WriteCache, runs: Mapping[str, tuple[Owner, RunParts]], stored: Mapping[str, Stored]
) -> None:
    """Note the runs' parts (the stored ones merged in) as stored once this commits."""
    for key, (owner, parts) in runs.items():
        found = stored.get(key)
        if owner.event_time_us is None and found is not None and found.start_event_us is not None:
            cache.pending_run_parts[key] = KnownRun(
                found.start_event_us, frozenset(parts.io), dict(parts.sources)
            )


def remember_run_parts(cache: WriteCache) -> None:
    """After a commit: the runs' parts noted are now known stored."""
    for key, known in cache.pending_run_parts.items():
        cache.run_parts.put(key, known)
    cache.pending_run_parts = {}


def _stored(fetch: Fetch, runs: Mapping[str, tuple[Owner, RunParts]]) -> dict[str, Stored]:
    """The stored rows of ``runs``: one query for runs (with their start), one for JobEvents."""
    found: dict[str, Stored] = {}
    run_keys = [k for k, (owner, _) in runs.items() if owner.event_time_us is None]
    for key, vid, time_us, text, started, start in fetch("job_version_runs", _runs_query, run_keys):
        found[key] = Stored(vid, time_us, text, int(started), None if start is None else int(start))
    event_keys = [k for k, (owner, _) in runs.items() if owner.event_time_us is not None]
    for key, vid, time_us, text in fetch("job_version_events", _events_query, event_keys):
        found[key] = Stored(vid, time_us, text, None)
    return found


def _runs_query(keys: list[BindParameter[Any]]) -> Select[Any]:
    rv, r = t.run_versions.c, t.runs.c
    return (
        select(r.run_id, rv.version_id, rv.time_us, rv.parts, r.started_us, r.start_event_us)
        .select_from(t.runs.outerjoin(t.run_versions, rv.run_key == r.run_id))
        .where(r.run_id.in_(keys))
    )


def _events_query(keys: list[BindParameter[Any]]) -> Select[Any]:
    rv = t.run_versions.c
    return select(rv.run_key, rv.version_id, rv.time_us, rv.parts).where(rv.run_key.in_(keys))


def merge_runs(
    runs: Mapping[str, tuple[Owner, RunParts]], stored: Mapping[str, Stored]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[tuple[int, str]]]:
    """The new version rows, the changed run -> version rows, and the versions runs left."""
    versions: dict[str, dict[str, Any]] = {}
    assigned: list[dict[str, Any]] = []
    replaced: set[tuple[int, str]] = set()
    for key, (owner, parts) in runs.items():
        before = stored.get(key, _NONE)
        time_us = owner.event_time_us if owner.event_time_us is not None else before.started_us
        if time_us is None:
            continue  # a run not stored (cannot happen: runs are written first)
        if before.parts is not None:
            parts.add_stored(before.parts)
        text = parts.to_json()
        if before.parts == text and before.version_id is not None:
            if before.time_us == time_us:
                continue  # nothing new: a repeat, or an event that changes no part
            vid = before.version_id
        else:
            content = parts.content_json()
            vid = text_version_id(owner.job_id, content)
            if vid not in versions:
                versions[vid] = {
                    "id": vid,
                    "job_id": owner.job_id,
                    "ns_id": owner.ns_id,
                    "content": content,
                }
        if before.version_id is not None and before.version_id != vid:
            replaced.add((owner.job_id, before.version_id))
        assigned.append(
            {
                "run_key": key,
                "job_id": owner.job_id,
                "ns_id": owner.ns_id,
                "version_id": vid,
                "time_us": time_us,
                "is_run": 0 if owner.event_time_us is not None else 1,
                "parts": text,
            }
        )
    return list(versions.values()), assigned, replaced


_NONE = Stored(None, None, None, None)


def _drop_unran(conn: Connection, versions: set[tuple[int, str]]) -> None:
    """Delete the versions no run runs any more (a run's earlier, partial state).

    A run whose START listed only its inputs ran a version of them alone
    until its COMPLETE listed its outputs: that version goes, unless
    another run ran it, so the rows do not depend on the order events came in.
    """
    if not versions:
        return
    rv, jv = t.run_versions.c, t.job_versions.c
    ran = exists().where(rv.job_id == jv.job_id, rv.version_id == jv.id)
    ids = sorted(vid for _, vid in versions)
    conn.execute(delete(t.job_versions).where(jv.id.in_(ids), ~ran))


def _run_version_set(_existing: Any, new: Any) -> dict[str, Any]:
    return {"version_id": new.version_id, "time_us": new.time_us, "parts": new.parts}
