"""Job versions: the rows that define what a run (or a JobEvent) ran, and the version they make.

A job's version is what defines it: the set of datasets it reads and
writes (each named by the table it belongs to, so a partition that moves
every run does not mint a version a run: see
:mod:`feast_lineage.consumer.intake.job_version_parts`), its ``sourceCode``,
``sql`` and ``sourceCodeLocation`` facets and its ``jobType``.

Ingest hands each event's *parts* (:class:`JobVersionParts`): the datasets
it listed with their table, the source facets it carried (by rank) and who
owns the run. Parts are immutable, content-addressed rows written with
``insert_ignore``. After writing them, :func:`write_job_versions` recomputes
the version of every run the batch touched from *all* its stored parts
(a run's inputs and outputs are the union of its events'; each source
facet is the one of its latest event carrying it), so the answer depends
only on the set of events stored, never on their order or repetition. A
version's id is the digest of its content and job; its row is written
once, and goes when no run runs it any more (a run's partial state before
its last event), so the tables hold the same rows whatever the order.
``feast_lineage_run_versions`` says which version each run ran; "current"
and "first seen" are derived at read time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from sqlalchemy import Connection, delete, exists, select

from feast_lineage.consumer.store.engine.dialect import insert_ignore, upsert
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.job_version_content import VersionContent, version_id

# The job facets that define a version, besides its inputs and outputs.
SOURCE_FACETS = ("sourceCode", "sql", "sourceCodeLocation", "jobType")

_CHUNK = 1000


class JobVersionIoRow(TypedDict):
    """A dataset a run (or JobEvent) listed, with the table it stands for."""

    run_key: str  # a run id, or a JobEvent's event key
    direction: str  # input or output
    dataset_id: int  # the dataset as the event named it
    group_id: int  # dataset_id(group_namespace, group_name)
    group_namespace: str
    group_name: str


class JobVersionSourceRow(TypedDict):
    """A source facet an event of a run carried: the latest (highest rank) counts."""

    run_key: str
    name: str  # one of SOURCE_FACETS
    rank: str  # the event's
    digest: str  # of the payload without its "_" keys (the job_sources row)


class JobSourceRow(TypedDict):
    """A source facet's payload (without ``_producer``, ``_schemaURL``), by its digest."""

    job_id: int
    digest: str
    payload: str  # canonical JSON


@dataclass(frozen=True, slots=True)
class RunOwner:
    """Whose run a key is: its job, and for a JobEvent its time (a run's is its start)."""

    job_id: int
    ns_id: int
    event_time_us: int | None  # None for a run: its start time is read from the runs table


@dataclass
class JobVersionParts:
    """The job version rows of one or more events."""

    io: dict[tuple[str, str, int, int], JobVersionIoRow] = field(default_factory=dict)
    sources: dict[tuple[str, str, str], JobVersionSourceRow] = field(default_factory=dict)
    payloads: dict[tuple[int, str], JobSourceRow] = field(default_factory=dict)
    owners: dict[str, RunOwner] = field(default_factory=dict)

    def merge(self, other: JobVersionParts) -> None:
        for key, io in other.io.items():
            self.io.setdefault(key, io)
        for skey, source in other.sources.items():
            self.sources.setdefault(skey, source)
        for pkey, payload in other.payloads.items():
            self.payloads.setdefault(pkey, payload)
        self.owners.update(other.owners)


def run_content(
    io: Iterable[tuple[str, int, int, str, str]], sources: Iterable[tuple[str, str, str]]
) -> VersionContent:
    """A run's version content from all its parts, whatever order they were stored in.

    ``io``: (direction, dataset id, group id, group namespace, group name).
    A dataset one event names by its table and another by itself (one
    sent its symlinks, one did not) counts as the table. ``sources``:
    (facet name, rank, digest); the highest rank wins per name.
    """
    grouped: dict[tuple[str, int], set[tuple[int, str, str]]] = {}
    for direction, did, gid, gns, gname in io:
        grouped.setdefault((direction, did), set()).add((gid, gns, gname))
    tables: dict[str, set[tuple[str, str]]] = {"input": set(), "output": set()}
    for (direction, did), groups in grouped.items():
        named = {g for g in groups if g[0] != did} or groups
        tables.setdefault(direction, set()).update((gns, gname) for _, gns, gname in named)
    latest: dict[str, tuple[str, str]] = {}
    for name, rank, digest in sources:
        if name not in latest or rank > latest[name][0]:
            latest[name] = (rank, digest)
    return VersionContent(
        inputs=tuple(sorted(tables["input"])),
        outputs=tuple(sorted(tables["output"])),
        # A deleted facet (digest "") is absent, unless a later event sends it again.
        sources=tuple(sorted((name, d) for name, (_, d) in latest.items() if d)),
    )


Rows = Sequence[Mapping[str, Any]]
Execute = Callable[[str, Callable[[], Any], Rows], int]


def write_job_versions(conn: Connection, parts: JobVersionParts, ex: Execute) -> None:
    """Store ``parts`` and recompute the version of every run they touch (runs written first)."""
    ex(
        "job_version_io",
        lambda: insert_ignore(
            conn, t.job_version_io, ["run_key", "direction", "dataset_id", "group_id"]
        ),
        list(parts.io.values()),
    )
    ex(
        "job_version_sources",
        lambda: insert_ignore(conn, t.job_version_sources, ["run_key", "name", "rank"]),
        list(parts.sources.values()),
    )
    ex(
        "job_sources",
        lambda: insert_ignore(conn, t.job_sources, ["job_id", "digest"]),
        list(parts.payloads.values()),
    )
    keys = sorted(parts.owners)
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        before = _assigned(conn, chunk)
        versions, assigned = recompute(conn, {k: parts.owners[k] for k in chunk})
        ex(
            "job_versions",
            lambda: insert_ignore(conn, t.job_versions, ["id"]),
            versions,
        )
        ex(
            "run_versions",
            lambda: upsert(conn, t.run_versions, ["run_key"], _run_version_set, _changed),
            assigned,
        )
        now = {(row["job_id"], row["version_id"]) for row in assigned}
        _drop_unran(conn, {v for v in before if v not in now})


def _assigned(conn: Connection, keys: list[str]) -> set[tuple[int, str]]:
    """The (job, version) the runs ``keys`` ran before this batch."""
    rv = t.run_versions.c
    stmt = select(rv.job_id, rv.version_id).where(rv.run_key.in_(keys))
    return {(int(job), vid) for job, vid in conn.execute(stmt)}


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


def recompute(
    conn: Connection, owners: Mapping[str, RunOwner]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The version rows and run -> version rows of ``owners``' runs, from their stored parts."""
    keys = sorted(owners)
    io, s, r = t.job_version_io.c, t.job_version_sources.c, t.runs.c
    io_rows: dict[str, list[tuple[str, int, int, str, str]]] = {}
    for key, direction, did, gid, gns, gname in conn.execute(
        select(
            io.run_key, io.direction, io.dataset_id, io.group_id, io.group_namespace, io.group_name
        ).where(io.run_key.in_(keys))
    ):
        io_rows.setdefault(key, []).append((direction, int(did), int(gid), gns, gname))
    source_rows: dict[str, list[tuple[str, str, str]]] = {}
    for key, name, rank, digest in conn.execute(
        select(s.run_key, s.name, s.rank, s.digest).where(s.run_key.in_(keys))
    ):
        source_rows.setdefault(key, []).append((name, rank, digest))
    run_keys = [k for k in keys if owners[k].event_time_us is None]
    started: dict[str, int] = {}
    if run_keys:
        stmt = select(r.run_id, r.started_us).where(r.run_id.in_(run_keys))
        started = {run: int(us) for run, us in conn.execute(stmt)}
    versions: dict[str, dict[str, Any]] = {}
    assigned: list[dict[str, Any]] = []
    for key in keys:
        owner = owners[key]
        time_us = owner.event_time_us if owner.event_time_us is not None else started.get(key)
        if time_us is None:  # not stored (cannot happen: the run is written first)
            continue
        content = run_content(io_rows.get(key, ()), source_rows.get(key, ()))
        vid = version_id(owner.job_id, content)
        versions.setdefault(
            vid,
            {"id": vid, "job_id": owner.job_id, "ns_id": owner.ns_id, "content": content.to_json()},
        )
        assigned.append(
            {
                "run_key": key,
                "job_id": owner.job_id,
                "ns_id": owner.ns_id,
                "version_id": vid,
                "time_us": time_us,
                "is_run": 0 if owner.event_time_us is not None else 1,
            }
        )
    return list(versions.values()), assigned


def _run_version_set(_existing: Any, new: Any) -> dict[str, Any]:
    return {"version_id": new.version_id, "time_us": new.time_us}


def _changed(existing: Any, new: Any) -> Any:
    return (existing.version_id != new.version_id) | (existing.time_us != new.time_us)
