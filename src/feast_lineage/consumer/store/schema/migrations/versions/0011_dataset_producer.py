"""Who produced a dataset: the last writer or declarer, never a reader, recomputed.

Adds ``feast_lineage_datasets.producer_rank`` (frozen in
:mod:`..frozen.producer_rank_0011`: a later change to ingest does not
change what this does) and recomputes every dataset's ``producer`` from the
stored events: the producer
of the latest event that wrote it (an output) or declared it (a
DatasetEvent), else of the first event that read it. Before this, a read
made its producer the dataset's. Events are read in chunks, in id order;
datasets no stored event mentions keep what they have.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import dataset_id
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import decompress, rank
from feast_lineage.consumer.store.schema.migrations.frozen.producer_rank_0011 import (
    outranks,
    producer_rank,
)

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

_DATASETS = "feast_lineage_datasets"


def upgrade() -> None:
    op.add_column(_DATASETS, sa.Column("producer_rank", sa.String(64), nullable=True))
    _recompute(op.get_bind())


def downgrade() -> None:
    op.drop_column(_DATASETS, "producer_rank")


def _mentions(event: dict[str, Any]) -> Iterator[tuple[dict[str, Any], bool]]:
    """(dataset, whether the event wrote or declared it) for each dataset it names."""
    if "dataset" in event and "job" not in event:
        if isinstance(event["dataset"], dict):
            yield event["dataset"], True
        return
    for key, writes in (("inputs", False), ("outputs", True)):
        listed = event.get(key)
        for ds in listed if isinstance(listed, list) else []:
            if isinstance(ds, dict):
                yield ds, writes


def _recompute(conn: sa.Connection) -> None:
    chunk = chunk_size()
    events = sa.table(
        "feast_lineage_events",
        sa.column("id", sa.BigInteger),
        sa.column("event_key", sa.String),
        sa.column("payload", sa.LargeBinary),
    )
    best: dict[int, tuple[str, str | None]] = {}
    after = -1
    while True:
        rows = conn.execute(
            sa.select(events.c.id, events.c.event_key, events.c.payload)
            .where(events.c.id > after)
            .order_by(events.c.id)
            .limit(chunk)
        ).all()
        if not rows:
            break
        after = rows[-1].id
        for row in rows:
            try:
                event = orjson.loads(decompress(bytes(row.payload)))
            except orjson.JSONDecodeError:  # not an event ingest stored: it names nothing
                continue
            if not isinstance(event, dict):
                continue
            producer = event.get("producer")
            event_rank = rank(row.event_key)
            for ds, writes in _mentions(event):
                namespace, name = ds.get("namespace"), ds.get("name")
                if not (isinstance(namespace, str) and isinstance(name, str)):
                    continue
                did = dataset_id(namespace, name)
                key = producer_rank(event_rank, writes=writes)
                if outranks(key, best.get(did, (None, None))[0]):
                    best[did] = (key, str(producer))
    datasets = sa.table(
        _DATASETS,
        sa.column("id", sa.BigInteger),
        sa.column("producer", sa.Text),
        sa.column("producer_rank", sa.String),
    )
    update = (
        datasets.update()
        .where(datasets.c.id == sa.bindparam("did"))
        .values(producer=sa.bindparam("who"), producer_rank=sa.bindparam("key"))
    )
    values = [{"did": did, "key": key, "who": who} for did, (key, who) in best.items()]
    for start in range(0, len(values), chunk):
        conn.execute(update, values[start : start + chunk])
