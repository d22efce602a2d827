"""Explicit lineage as of an instant: one statement per event that carried an explicit facet.

Creates ``feast_lineage_explicit_statements``: per (owner, facet, origin),
one row per event rank that carried that ``lineage`` or ``jobDependencies``
facet, with the payload's digest, so the explicit edges current at T are
those of the payload its last statement ranked at or before T names. A
stored store's statements are derived from its stored events with
migration 0010's frozen parser (:mod:`..frozen.explicit_0010`: the same
owner, facet, origin and digest ingest gives), read in chunks in id order
and written insert-or-ignore, so memory stays bounded; then every current
pointer (``feast_lineage_explicit_lineage``) is a statement too, so a
payload whose event a prune removed still answers from its rank on.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import (
    event_statements,
    insert_ignore,
    node_key,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import (
    decompress,
    digest,
    dumps,
    rank,
)

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

_meta = sa.MetaData()
_STATEMENTS = sa.Table(
    "feast_lineage_explicit_statements",
    _meta,
    sa.Column("owner_id", sa.BigInteger, primary_key=True, autoincrement=False),
    sa.Column("facet", sa.String(32), primary_key=True),
    sa.Column("origin", sa.String(16), primary_key=True),
    sa.Column("rank", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(32), nullable=False),
    sqlite_with_rowid=False,
)
_KEY = ["owner_id", "facet", "origin", "rank"]
_events = sa.table(
    "feast_lineage_events",
    sa.column("id", sa.BigInteger),
    sa.column("event_key", sa.String),
    sa.column("payload", sa.LargeBinary),
)
_pointers = sa.table(
    "feast_lineage_explicit_lineage",
    sa.column("owner_id", sa.BigInteger),
    sa.column("facet", sa.String),
    sa.column("origin", sa.String),
    sa.column("rank", sa.String),
    sa.column("digest", sa.String),
)


def upgrade() -> None:
    conn = op.get_bind()
    _STATEMENTS.create(conn)
    chunk = chunk_size()
    insert = insert_ignore(conn, _STATEMENTS, _KEY)
    for rows in _event_chunks(conn, chunk):
        found: dict[tuple[Any, ...], dict[str, Any]] = {}
        for row in rows:
            data = decompress(bytes(row.payload))
            if b'"lineage"' in data or b'"jobDependencies"' in data:
                _statements(orjson.loads(data), rank(row.event_key), found)
        if found:
            conn.execute(insert, [found[k] for k in sorted(found)])
    p = _pointers.c
    current = [
        {"owner_id": o, "facet": f, "origin": g, "rank": r, "digest": d}
        for o, f, g, r, d in conn.execute(
            sa.select(p.owner_id, p.facet, p.origin, p.rank, p.digest)
        )
    ]
    for start in range(0, len(current), chunk):
        conn.execute(insert, current[start : start + chunk])


def downgrade() -> None:
    _STATEMENTS.drop(op.get_bind())


def _statements(
    event: dict[str, Any], event_rank: str, found: dict[tuple[Any, ...], dict[str, Any]]
) -> None:
    """The event's statements, keyed as the table is (0010's pointer rows, one per facet)."""
    for statement in event_statements(event):
        owner = node_key(statement.owner)
        key = (owner, statement.facet, statement.origin, event_rank)
        found.setdefault(
            key,
            {
                "owner_id": owner,
                "facet": statement.facet,
                "origin": statement.origin,
                "rank": event_rank,
                "digest": digest(dumps(statement.payload)),
            },
        )


def _event_chunks(conn: sa.Connection, chunk: int) -> Iterator[Sequence[Any]]:
    after = -1
    e = _events.c
    while True:
        rows = conn.execute(
            sa.select(e.id, e.event_key, e.payload).where(e.id > after).order_by(e.id).limit(chunk)
        ).all()
        if not rows:
            return
        after = rows[-1].id
        yield rows
