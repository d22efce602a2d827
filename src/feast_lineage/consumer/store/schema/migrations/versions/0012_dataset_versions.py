"""Dataset versions: one row per (event, dataset) observation, derived from stored events.

Adds ``feast_lineage_dataset_versions`` (see ``store/schema/tables.py``) and
writes the rows ingest would have written for every stored event (frozen
in :mod:`..frozen.dataset_versions_0012`: a later change to ingest does not
change what this does): a row for each dataset a COMPLETE run wrote, and
for each dataset an event stated a schema, lifecycleStateChange, version or
symlinks facet of. A row points at the facet blobs of those facets; a blob
the store no longer holds (a namespace reset removed it) is written back
from the event.

Events are read in chunks, in id order, and each chunk's rows are written
before the next is read, so memory stays bounded (one chunk of events and
its rows) whatever the store's size. Rows are content-addressed, each
stored event's are its own and the table is new, so they are inserted as
they are; a blob is inserted unless one is stored under its id.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.dataset_versions_0012 import (
    DatasetVersionRow,
    version_rows,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import (
    decompress,
    digest,
    dumps,
)

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_TABLE = "feast_lineage_dataset_versions"
# The facets a row points at, by the row's column.
_BLOB_FACETS = {
    "schema_id": "schema",
    "lifecycle_id": "lifecycleStateChange",
    "symlinks_id": "symlinks",
}


def upgrade() -> None:
    table = op.create_table(
        _TABLE,
        sa.Column("dataset_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("time_us", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("run_id", sa.LargeBinary, nullable=True),  # 16 bytes
        sa.Column("job_id", sa.BigInteger, nullable=True),
        sa.Column("event_type", sa.Integer, nullable=True),
        sa.Column("writes", sa.Integer, nullable=False),
        sa.Column("schema_id", sa.String(32), nullable=True),
        sa.Column("lifecycle_id", sa.String(32), nullable=True),
        sa.Column("dataset_version", sa.Text, nullable=True),
        sa.Column("symlinks_id", sa.String(32), nullable=True),
        sa.Column("row_count", sa.BigInteger, nullable=True),
        sa.Column("byte_count", sa.BigInteger, nullable=True),
        sa.Column("file_count", sa.BigInteger, nullable=True),
        sa.Column("facets_digest", sa.BigInteger, nullable=False),
        sqlite_with_rowid=False,
    )
    _backfill(op.get_bind(), table)


def downgrade() -> None:
    op.drop_table(_TABLE)


def _blobs(event: dict[str, Any], rows: dict[int, DatasetVersionRow], into: dict[str, str]) -> None:
    """The canonical text of each facet blob ``rows`` point at, by id."""
    wanted = {row[column] for row in rows.values() for column in _BLOB_FACETS if row[column]}  # type: ignore[literal-required]
    if not wanted:
        return
    datasets = [event.get("dataset")] if "dataset" in event and "job" not in event else []
    for key in ("inputs", "outputs"):
        listed = event.get(key)
        datasets.extend(listed if isinstance(listed, list) else [])
    for ds in datasets:
        facets = ds.get("facets") if isinstance(ds, dict) else None
        for name in _BLOB_FACETS.values():
            value = facets.get(name) if isinstance(facets, dict) else None
            if value is not None:
                data = dumps(value)
                blob = digest(data)
                if blob in wanted:
                    into.setdefault(blob, data.decode())


def _backfill(conn: sa.Connection, table: sa.Table) -> None:
    chunk = chunk_size()
    events = sa.table(
        "feast_lineage_events",
        sa.column("id", sa.BigInteger),
        sa.column("event_key", sa.String),
        sa.column("kind", sa.String),
        sa.column("event_time_us", sa.BigInteger),
        sa.column("run_id", sa.String),
        sa.column("payload", sa.LargeBinary),
    )
    blobs = sa.table(
        "feast_lineage_facet_blobs", sa.column("id", sa.String), sa.column("payload", sa.Text)
    )
    after = -1
    while True:
        found = conn.execute(
            sa.select(
                events.c.id,
                events.c.event_key,
                events.c.kind,
                events.c.event_time_us,
                events.c.run_id,
                events.c.payload,
            )
            .where(events.c.id > after)
            .order_by(events.c.id)
            .limit(chunk)
        ).all()
        if not found:
            return
        after = found[-1].id
        rows: dict[int, DatasetVersionRow] = {}
        texts: dict[str, str] = {}
        for stored in found:
            try:
                event = orjson.loads(decompress(bytes(stored.payload)))
            except orjson.JSONDecodeError:  # not an event ingest stored
                continue
            if not isinstance(event, dict):
                continue
            own = version_rows(
                event,
                stored.kind,
                event_key=stored.event_key,
                time_us=stored.event_time_us,
                run_id=stored.run_id,
            )
            _blobs(event, own, texts)
            rows.update(own)
        new = list(rows.values())
        for start in range(0, len(new), chunk):
            conn.execute(table.insert(), new[start : start + chunk])
        if texts:
            stored_blobs = set(
                conn.execute(sa.select(blobs.c.id).where(blobs.c.id.in_(sorted(texts)))).scalars()
            )
            missing = [{"id": k, "payload": v} for k, v in texts.items() if k not in stored_blobs]
            if missing:
                conn.execute(blobs.insert(), missing)
        if len(found) < chunk:
            return
