"""A job facet's first statement: ``feast_lineage_job_facets.first_rank``.

A job's facets as of an instant are read from its events when a facet was
stated again since (``store/read/job_facets_at.py``); the rank of the
facet's first statement tells, without reading events, that a facet first
stated after the instant did not exist then. This adds the column and
fills it from the stored RunEvents and JobEvents: one pass in id order,
in chunks, with migration 0009's frozen payload reader (the rank ingest
gave each event, from its key); the least rank per (job, facet) is written
with a guarded UPDATE, and a bounded map of the least ranks already
written spares the UPDATEs that would change nothing, so memory stays
bounded whatever the number of jobs. A facet none of whose events is left
(a prune removed them) gets its latest statement's rank: the earliest the
store knows (as of an instant before it, the facet is left out, never
shown with another value). A payload that is not compressed JSON (ingest
stores none) is passed over.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
import zstandard
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import decompress, rank

revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

_TABLE = "feast_lineage_job_facets"
_KNOWN = 65_536  # (job, facet) least ranks remembered: about 10 MB
_facets = sa.table(
    _TABLE,
    sa.column("owner_id", sa.BigInteger),
    sa.column("name", sa.String),
    sa.column("rank", sa.String),
    sa.column("first_rank", sa.String),
)
_events = sa.table(
    "feast_lineage_events",
    sa.column("id", sa.BigInteger),
    sa.column("kind", sa.String),
    sa.column("subject_id", sa.BigInteger),
    sa.column("event_key", sa.String),
    sa.column("payload", sa.LargeBinary),
)


def upgrade() -> None:
    op.add_column(_TABLE, sa.Column("first_rank", sa.String(64), nullable=True))
    conn = op.get_bind()
    f = _facets.c
    lower = (
        sa.update(_facets)
        .where(f.owner_id == sa.bindparam("owner"), f.name == sa.bindparam("facet"))
        .where(sa.or_(f.first_rank.is_(None), f.first_rank > sa.bindparam("least")))
        .values(first_rank=sa.bindparam("least"))
    )
    known: OrderedDict[tuple[int, str], str] = OrderedDict()
    for rows in _event_chunks(conn, chunk_size()):
        least: dict[tuple[int, str], str] = {}
        for row in rows:
            facets = _job_facets(bytes(row.payload))
            if facets is None:
                continue
            event_rank = rank(row.event_key)
            for name in facets:
                key = (int(row.subject_id), str(name))
                if event_rank < least.get(key, "~"):
                    least[key] = event_rank
        pending = sorted((k, r) for k, r in least.items() if r < known.get(k, "~"))
        if pending:
            updates = [{"owner": o, "facet": name, "least": r} for (o, name), r in pending]
            conn.execute(lower, updates)
        for key, r in pending:
            known[key] = r
            known.move_to_end(key)
            if len(known) > _KNOWN:
                known.popitem(last=False)
    conn.execute(sa.update(_facets).where(f.first_rank.is_(None)).values(first_rank=f.rank))


def downgrade() -> None:
    with op.batch_alter_table(_TABLE) as batch:
        batch.drop_column("first_rank")


def _job_facets(payload: bytes) -> dict[str, Any] | None:
    """The event's job facets; None for an event without, or a payload not compressed JSON."""
    try:
        event = orjson.loads(decompress(payload))
    except (zstandard.ZstdError, orjson.JSONDecodeError):
        return None
    job = event.get("job") if isinstance(event, dict) else None
    facets = job.get("facets") if isinstance(job, dict) else None
    return facets if isinstance(facets, dict) else None


def _event_chunks(conn: sa.Connection, chunk: int) -> Iterator[Sequence[Any]]:
    """The RunEvents and JobEvents (their subject is the job), ``chunk`` at a time in id order."""
    after = -1
    e = _events.c
    while True:
        rows = conn.execute(
            sa.select(e.id, e.subject_id, e.event_key, e.payload)
            .where(e.id > after, e.kind.in_(("run", "job")))
            .order_by(e.id)
            .limit(chunk)
        ).all()
        if not rows:
            return
        after = rows[-1].id
        yield rows
