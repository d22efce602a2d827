"""Job versions: each run's (and JobEvent's) parts and the version it ran, from the stored events.

Creates the job version tables (see ``schema/tables.py``, migration 0013)
and fills them as ingest would have: a first pass reads the events in id
order, chunk by chunk, and stores each event's parts (the tables it listed,
the source facets it carried); a second pass walks the runs, then the
JobEvents, chunk by chunk, and stores the version each ran. Memory is one
chunk of events or runs at a time. What ingest did then is frozen in
:mod:`..frozen.job_versions_0013`.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import insert_ignore
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import dataset_id
from feast_lineage.consumer.store.schema.migrations.frozen.job_versions_0013 import (
    SOURCE_FACETS,
    content_json,
    source_digest,
    table_of,
    version_id,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import decompress, rank

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None

_meta = sa.MetaData()
_IO = sa.Table(
    "feast_lineage_job_version_io",
    _meta,
    sa.Column("run_key", sa.String(36), primary_key=True),
    sa.Column("direction", sa.String(6), primary_key=True),
    sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("group_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("group_namespace", sa.Text, nullable=False),
    sa.Column("group_name", sa.Text, nullable=False),
)
_SOURCES = sa.Table(
    "feast_lineage_job_version_sources",
    _meta,
    sa.Column("run_key", sa.String(36), primary_key=True),
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(32), nullable=False),
)
_PAYLOADS = sa.Table(
    "feast_lineage_job_sources",
    _meta,
    sa.Column("job_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("digest", sa.String(32), primary_key=True),
    sa.Column("payload", sa.Text, nullable=False),
)
_RUN_VERSIONS = sa.Table(
    "feast_lineage_run_versions",
    _meta,
    sa.Column("run_key", sa.String(36), primary_key=True),
    sa.Column("job_id", sa.BigInteger, nullable=False),
    sa.Column("ns_id", sa.BigInteger, nullable=False),
    sa.Column("version_id", sa.String(32), nullable=False),
    sa.Column("time_us", sa.BigInteger, nullable=False),
    sa.Column("is_run", sa.Integer, nullable=False),
    sa.Index("ix_ol_run_versions_job_version", "job_id", "version_id", "time_us"),
    sa.Index("ix_ol_run_versions_job_time", "job_id", "time_us"),
)
_VERSIONS = sa.Table(
    "feast_lineage_job_versions",
    _meta,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("job_id", sa.BigInteger, nullable=False),
    sa.Column("ns_id", sa.BigInteger, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Index("ix_ol_job_versions_ns", "ns_id"),
)
_TABLES = (_IO, _SOURCES, _PAYLOADS, _RUN_VERSIONS, _VERSIONS)

_events = sa.table(
    "feast_lineage_events",
    sa.column("id", sa.BigInteger),
    sa.column("event_key", sa.String),
    sa.column("kind", sa.String),
    sa.column("event_time_us", sa.BigInteger),
    sa.column("ns_id", sa.BigInteger),
    sa.column("subject_id", sa.BigInteger),
    sa.column("run_id", sa.String),
    sa.column("payload", sa.LargeBinary),
)
_runs = sa.table(
    "feast_lineage_runs",
    sa.column("run_id", sa.String),
    sa.column("job_id", sa.BigInteger),
    sa.column("ns_id", sa.BigInteger),
    sa.column("started_us", sa.BigInteger),
)


def upgrade() -> None:
    conn = op.get_bind()
    for table in _TABLES:
        table.create(conn)
    chunk = chunk_size()
    _parts(conn, chunk)
    _versions(conn, chunk)


def downgrade() -> None:
    conn = op.get_bind()
    for table in reversed(_TABLES):
        table.drop(conn)


def _insert_new(conn: sa.Connection, table: sa.Table, rows: Sequence[Any]) -> None:
    if rows:
        conn.execute(insert_ignore(conn, table, [c.name for c in table.primary_key.columns]), rows)


def _parts(conn: sa.Connection, chunk: int) -> None:
    """Each stored RunEvent's and JobEvent's parts, a chunk of events at a time."""
    e = _events.c
    after = -1
    while True:
        rows = conn.execute(
            sa.select(e.id, e.event_key, e.kind, e.subject_id, e.run_id, e.payload)
            .where(e.id > after, e.kind.in_(("run", "job")))
            .order_by(e.id)
            .limit(chunk)
        ).all()
        if not rows:
            return
        after = rows[-1].id
        io: dict[tuple[Any, ...], dict[str, Any]] = {}
        sources: dict[tuple[Any, ...], dict[str, Any]] = {}
        payloads: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in rows:
            try:
                event = orjson.loads(decompress(bytes(row.payload)))
            except orjson.JSONDecodeError:
                continue
            if not isinstance(event, dict):
                continue
            key = row.run_id if row.kind == "run" else row.event_key
            if key is None:
                continue
            _event_parts(event, key, rank(row.event_key), row.subject_id, io, sources, payloads)
        _insert_new(conn, _IO, list(io.values()))
        _insert_new(conn, _SOURCES, list(sources.values()))
        _insert_new(conn, _PAYLOADS, list(payloads.values()))


def _event_parts(
    event: dict[str, Any],
    key: str,
    event_rank: str,
    job: int,
    io: dict[tuple[Any, ...], dict[str, Any]],
    sources: dict[tuple[Any, ...], dict[str, Any]],
    payloads: dict[tuple[Any, ...], dict[str, Any]],
) -> None:
    for direction, listed_key in (("input", "inputs"), ("output", "outputs")):
        listed = event.get(listed_key)
        for ds in listed if isinstance(listed, list) else []:
            if not (
                isinstance(ds, dict)
                and isinstance(ds.get("namespace"), str)
                and isinstance(ds.get("name"), str)
            ):
                continue
            did = dataset_id(ds["namespace"], ds["name"])
            gns, gname = table_of(ds)
            gid = dataset_id(gns, gname)
            io.setdefault(
                (key, direction, did, gid),
                {
                    "run_key": key,
                    "direction": direction,
                    "dataset_id": did,
                    "group_id": gid,
                    "group_namespace": gns,
                    "group_name": gname,
                },
            )
    job_part = event.get("job")
    facets = job_part.get("facets") if isinstance(job_part, dict) else None
    if not isinstance(facets, dict):
        return
    for name in SOURCE_FACETS:
        if name not in facets:
            continue
        digest, text = source_digest(facets[name])
        if text is not None:
            payloads.setdefault((job, digest), {"job_id": job, "digest": digest, "payload": text})
        sources.setdefault(
            (key, name, event_rank),
            {"run_key": key, "name": name, "rank": event_rank, "digest": digest},
        )


def _versions(conn: sa.Connection, chunk: int) -> None:
    """The version of every run, then of every JobEvent, a chunk at a time."""
    r, e = _runs.c, _events.c
    after = ""
    while True:
        rows = conn.execute(
            sa.select(r.run_id, r.job_id, r.ns_id, r.started_us)
            .where(r.run_id > after)
            .order_by(r.run_id)
            .limit(chunk)
        ).all()
        if not rows:
            break
        after = rows[-1].run_id
        _assign(conn, [(x.run_id, x.job_id, x.ns_id, x.started_us, 1) for x in rows])
    after_id = -1
    while True:
        events = conn.execute(
            sa.select(e.id, e.event_key, e.subject_id, e.ns_id, e.event_time_us)
            .where(e.id > after_id, e.kind == "job")
            .order_by(e.id)
            .limit(chunk)
        ).all()
        if not events:
            break
        after_id = events[-1].id
        _assign(conn, [(x.event_key, x.subject_id, x.ns_id, x.event_time_us, 0) for x in events])


def _assign(conn: sa.Connection, owners: list[tuple[str, int, int, int, int]]) -> None:
    keys = [o[0] for o in owners]
    io_rows: dict[str, list[tuple[str, int, int, str, str]]] = {}
    io = _IO.c
    for row in conn.execute(
        sa.select(
            io.run_key, io.direction, io.dataset_id, io.group_id, io.group_namespace, io.group_name
        ).where(io.run_key.in_(keys))
    ):
        io_rows.setdefault(row[0], []).append((row[1], int(row[2]), int(row[3]), row[4], row[5]))
    source_rows: dict[str, list[tuple[str, str, str]]] = {}
    s = _SOURCES.c
    for source in conn.execute(
        sa.select(s.run_key, s.name, s.rank, s.digest).where(s.run_key.in_(keys))
    ):
        source_rows.setdefault(source[0], []).append((source[1], source[2], source[3]))
    versions: dict[str, dict[str, Any]] = {}
    assigned = []
    for key, job, ns, time_us, is_run in owners:
        content = content_json(io_rows.get(key, ()), source_rows.get(key, ()))
        vid = version_id(job, content)
        versions.setdefault(vid, {"id": vid, "job_id": job, "ns_id": ns, "content": content})
        assigned.append(
            {
                "run_key": key,
                "job_id": job,
                "ns_id": ns,
                "version_id": vid,
                "time_us": time_us,
                "is_run": is_run,
            }
        )
    _insert_new(conn, _VERSIONS, list(versions.values()))
    _insert_new(conn, _RUN_VERSIONS, assigned)
