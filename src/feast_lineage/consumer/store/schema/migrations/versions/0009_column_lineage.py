"""Column lineage: column edges and which of them are current, derived from stored events.

Adds ``feast_lineage_column_edges`` (every input field -> output field edge a
``columnLineage`` facet stated, keyed by output dataset, job, origin and the
payload's digest) and ``feast_lineage_column_lineage`` (per output dataset,
job and origin, the digest of the latest payload: the current edges). Then
reads every stored event that carries the facet on an output (or on a
DatasetEvent's dataset) and writes the rows ingest would have written
(frozen in :mod:`..frozen.column_rows_0009`: a later change to ingest does
not change what this does), so a store gets column lineage without events
being sent again. Events are read in chunks, in id order.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.column_rows_0009 import (
    NO_JOB,
    OBSERVED,
    ColumnEdgeRow,
    ColumnLineageRow,
    column_rows,
)
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import dataset_id, job_id
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import (
    decompress,
    digest,
    dumps,
    rank,
)

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pointers = op.create_table(
        "feast_lineage_column_lineage",
        sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("job_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("origin", sa.String(16), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(32), nullable=False),
        sa.Column("run_id", sa.String(36), nullable=True),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
    )
    edges = op.create_table(
        "feast_lineage_column_edges",
        sa.Column("dst_dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("dst_field_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("job_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("origin", sa.String(16), primary_key=True),
        sa.Column("digest", sa.String(32), primary_key=True),
        sa.Column("src_dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("src_field_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("dst_ns_id", sa.BigInteger, nullable=False),
        sa.Column("dst_field", sa.Text, nullable=True),
        sa.Column("src_ns_id", sa.BigInteger, nullable=False),
        sa.Column("src_namespace", sa.Text, nullable=False),
        sa.Column("src_name", sa.Text, nullable=False),
        sa.Column("src_field", sa.Text, nullable=False),
        sa.Column("indirect", sa.Integer, nullable=False),
        sa.Column("transformations", sa.Text, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_column_lineage_job", pointers.name, ["job_id"], unique=False)
    op.create_index(
        "ix_ol_column_edges_src", edges.name, ["src_dataset_id", "src_field_id"], unique=False
    )
    op.create_index("ix_ol_column_edges_src_ns", edges.name, ["src_ns_id"], unique=False)
    _derive(op.get_bind(), pointers, edges)


def downgrade() -> None:
    op.drop_table("feast_lineage_column_edges")
    op.drop_table("feast_lineage_column_lineage")


def _stated(event: dict[str, Any]) -> Iterator[tuple[dict[str, Any], int]]:
    """(dataset, job id) of every written dataset of ``event`` that carries columnLineage."""
    if "dataset" in event and "job" not in event:
        yield event["dataset"], NO_JOB
        return
    job = event["job"]
    jid = job_id(job["namespace"], job["name"])
    yield from ((ds, jid) for ds in event.get("outputs") or [])


def _derive(conn: sa.Connection, pointers: sa.Table, edges: sa.Table) -> None:
    chunk = chunk_size()
    events = sa.table(
        "feast_lineage_events",
        sa.column("id", sa.BigInteger),
        sa.column("event_key", sa.String),
        sa.column("event_time_us", sa.BigInteger),
        sa.column("run_id", sa.String),
        sa.column("payload", sa.LargeBinary),
    )
    latest: dict[tuple[int, int, str], ColumnLineageRow] = {}
    done: set[tuple[int, int, str, str]] = set()
    after = -1
    while True:
        rows = conn.execute(
            sa.select(
                events.c.id,
                events.c.event_key,
                events.c.event_time_us,
                events.c.run_id,
                events.c.payload,
            )
            .where(events.c.id > after)
            .order_by(events.c.id)
            .limit(chunk)
        ).all()
        if not rows:
            break
        after = rows[-1].id
        found: list[ColumnEdgeRow] = []
        for row in rows:
            data = decompress(bytes(row.payload))
            if b"columnLineage" not in data:
                continue
            for ds, jid in _stated(orjson.loads(data)):
                facet = (ds.get("facets") or {}).get("columnLineage")
                if not isinstance(facet, dict):
                    continue
                did = dataset_id(ds["namespace"], ds["name"])
                payload_digest = digest(dumps(facet))
                pointer, stated = column_rows(
                    dataset=did,
                    namespace=ds["namespace"],
                    job=jid,
                    origin=OBSERVED,
                    digest=payload_digest,
                    run_id=row.run_id,
                    rank=rank(row.event_key),
                    facet=facet,
                    time_us=row.event_time_us,
                )
                key = (did, jid, OBSERVED)
                if key not in latest or pointer["rank"] > latest[key]["rank"]:
                    latest[key] = pointer
                if (did, jid, OBSERVED, payload_digest) not in done:
                    done.add((did, jid, OBSERVED, payload_digest))
                    found.extend(stated.values())
        for start in range(0, len(found), chunk):
            conn.execute(edges.insert(), found[start : start + chunk])
    rows_out = list(latest.values())
    for start in range(0, len(rows_out), chunk):
        conn.execute(pointers.insert(), rows_out[start : start + chunk])
