"""A dataset facet's payloads and the bound above which it states the current one.

A dataset's facets as of an instant T were those whose latest statement is
by T; a facet stated again since (every run restates its outputs' facets)
was left out of pages, as reading its events for each dataset of a page
costs too much. Two facts answer most of them without events:
``feast_lineage_dataset_facets.other_rank``, a rank above which every
statement of the facet states the current payload (the latest statement of
another payload), and ``feast_lineage_dataset_facet_values``, each payload's
first statement. When the current payload's first statement is above the
bound and by T, the facet was that payload at T.

This adds both and derives them from the stored events, as ingest would
have: one pass in id order, in chunks, reading each event's datasets'
facets (the payloads read with the store's dictionaries, ``payloads_0026``;
the blob ids and ranks as ``payloads_0009`` computes them). Per chunk, each
(dataset, facet, payload) stated gets its least rank into the values
(inserted for the facets the store holds, then lowered), and its greatest
raises the bound of a facet whose current payload is another. Memory is
one chunk's statements. What the events cannot vouch for is not claimed:

* a facet whose current payload no kept event states (a namespace reset
  removed the event) counts from its latest statement, its bound just
  below that rank;
* below the retention horizon (events pruned) nothing is claimed: the
  bound is at least the horizon's first rank;
* a dataset listed twice in one event with two payloads of a facet: ingest
  keeps one as the event's statement, this pass counts both as statements
  of the event's rank (a bound no lower than ingest's).

A payload that is not compressed JSON (ingest stores none) is passed over.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
import zstandard
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import dataset_id
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import (
    digest,
    dumps,
    rank,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0026 import Payloads

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None

_FACETS = "feast_lineage_dataset_facets"
_VALUES = "feast_lineage_dataset_facet_values"
_SORT_OFFSET = 2_208_988_800_000_000  # ranks start with the event time plus this, in 20 digits
_HORIZON_KEY = "dataset_versions_horizon"  # the cutoff (µs) of the latest prune
_DIGITS = "0123456789abcdef"  # what ranks are written in, in the order every collation keeps

_events = sa.table(
    "feast_lineage_events",
    sa.column("id", sa.BigInteger),
    sa.column("kind", sa.String),
    sa.column("event_key", sa.String),
    sa.column("payload", sa.LargeBinary),
)
_facets = sa.table(
    _FACETS,
    sa.column("owner_id", sa.BigInteger),
    sa.column("name", sa.String),
    sa.column("rank", sa.String),
    sa.column("blob_id", sa.String),
    sa.column("other_rank", sa.String),
)
_values = sa.table(
    _VALUES,
    sa.column("owner_id", sa.BigInteger),
    sa.column("name", sa.String),
    sa.column("blob_id", sa.String),
    sa.column("first_rank", sa.String),
)

# (dataset, facet, payload) -> (least, greatest) rank of the chunk's statements of it
Stated = dict[tuple[int, str, str], tuple[str, str]]


def upgrade() -> None:
    op.add_column(
        _FACETS, sa.Column("other_rank", sa.String(64), nullable=False, server_default="")
    )
    with op.batch_alter_table(_FACETS) as batch:  # ingest gives every row its own
        batch.alter_column("other_rank", server_default=None, existing_type=sa.String(64))
    op.create_table(
        _VALUES,
        sa.Column("owner_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("blob_id", sa.String(32), primary_key=True),
        sa.Column("first_rank", sa.String(64), nullable=False),
        sqlite_with_rowid=False,
    )
    conn = op.get_bind()
    payloads = Payloads(conn)
    for rows in _event_chunks(conn, chunk_size()):
        _write(conn, _stated(rows, payloads))
    _unvouched(conn, chunk_size())
    _floor_at_horizon(conn)


def downgrade() -> None:
    op.drop_table(_VALUES)
    with op.batch_alter_table(_FACETS) as batch:
        batch.drop_column("other_rank")


def below(rank: str) -> str:
    """The greatest text of ``rank``'s length and characters below ``rank``: at or above
    every other rank. Ranks are of one length (the event time in 20 digits, then 16 hex
    digits of the event's digest), and texts of one length in these characters compare
    alike in every database and collation. A rank of zeros has none below, and one of
    other characters (none that ingest writes) is not worked out: each is its own bound
    (nothing older claimed either way)."""
    if rank.strip(_DIGITS):
        return rank
    for i in range(len(rank) - 1, -1, -1):
        if rank[i] != "0":
            return rank[:i] + _DIGITS[_DIGITS.index(rank[i]) - 1] + "f" * (len(rank) - i - 1)
    return rank


def _stated(rows: Sequence[Any], payloads: Payloads) -> Stated:
    stated: Stated = {}
    for row in rows:
        event = _event(bytes(row.payload), payloads)
        if event is None:
            continue
        r = rank(row.event_key)
        for did, facets in _dataset_facets(event, row.kind):
            for name, value in facets.items():
                key = (did, str(name), digest(dumps(value)))
                low, high = stated.get(key, (r, r))
                stated[key] = (min(low, r), max(high, r))
    return stated


def _write(conn: sa.Connection, stated: Stated) -> None:
    """Each payload's least rank into the values (of facets the store holds); each
    payload's greatest raises the bound of a facet whose current payload is another."""
    held = _held(conn, sorted({owner for owner, _, _ in stated}))
    rows = [
        {"owner": o, "facet": n, "blob": b, "low": low, "high": high}
        for (o, n, b), (low, high) in sorted(stated.items())
        if (o, n) in held
    ]
    if not rows:
        return
    conn.execute(_insert_values(conn), rows)
    v, f = _values.c, _facets.c
    conn.execute(
        sa.update(_values)
        .where(v.owner_id == sa.bindparam("owner"), v.name == sa.bindparam("facet"))
        .where(v.blob_id == sa.bindparam("blob"), v.first_rank > sa.bindparam("low"))
        .values(first_rank=sa.bindparam("low")),
        rows,
    )
    conn.execute(
        sa.update(_facets)
        .where(f.owner_id == sa.bindparam("owner"), f.name == sa.bindparam("facet"))
        .where(f.blob_id != sa.bindparam("blob"), f.other_rank < sa.bindparam("high"))
        .values(other_rank=sa.bindparam("high")),
        rows,
    )


def _held(conn: sa.Connection, owners: list[int]) -> set[tuple[int, str]]:
    """The (dataset, facet) rows the store holds of ``owners``."""
    f = _facets.c
    held: set[tuple[int, str]] = set()
    for start in range(0, len(owners), 500):
        stmt = sa.select(f.owner_id, f.name).where(f.owner_id.in_(owners[start : start + 500]))
        held.update((int(o), str(n)) for o, n in conn.execute(stmt))
    return held


def _insert_values(conn: sa.Connection) -> sa.TextClause:
    """A value row, unless one of its key is stored (each database's way)."""
    columns = f"{_VALUES} (owner_id, name, blob_id, first_rank)"
    values = "VALUES (:owner, :facet, :blob, :low)"
    name = conn.dialect.name
    if name == "sqlite":
        return sa.text(f"INSERT OR IGNORE INTO {columns} {values}")
    if name == "postgresql":
        return sa.text(f"INSERT INTO {columns} {values} ON CONFLICT DO NOTHING")
    return sa.text(f"INSERT IGNORE INTO {columns} {values}")


def _unvouched(conn: sa.Connection, chunk: int) -> None:
    """A facet whose current payload no kept event states counts from its latest statement."""
    f, v = _facets.c, _values.c
    missing = (
        sa.select(f.owner_id, f.name, f.rank, f.blob_id)
        .select_from(
            _facets.outerjoin(
                _values,
                sa.and_(v.owner_id == f.owner_id, v.name == f.name, v.blob_id == f.blob_id),
            )
        )
        .where(v.owner_id.is_(None))
        .order_by(f.owner_id, f.name)
    )
    update = (
        sa.update(_facets)
        .where(f.owner_id == sa.bindparam("owner"), f.name == sa.bindparam("facet"))
        .values(other_rank=sa.bindparam("bound"))
    )
    while True:  # each round gives the rows it reads a value row: the next reads others
        rows = conn.execute(missing.limit(chunk)).all()
        if not rows:
            return
        found = [
            {"owner": o, "facet": n, "blob": b, "low": str(r), "bound": below(str(r))}
            for o, n, r, b in rows
        ]
        conn.execute(update, found)
        conn.execute(_insert_values(conn), found)


def _floor_at_horizon(conn: sa.Connection) -> None:
    """Below the retention horizon events were pruned: claim nothing there."""
    meta = sa.table("feast_lineage_meta", sa.column("key", sa.String), sa.column("value"))
    value = conn.execute(sa.select(meta.c.value).where(meta.c.key == _HORIZON_KEY)).scalar()
    if value is None:
        return
    floor = f"{int(value) + _SORT_OFFSET:020d}"  # below every rank of the cutoff's time
    f = _facets.c
    conn.execute(sa.update(_facets).where(f.other_rank < floor).values(other_rank=floor))


def _event(payload: bytes, payloads: Payloads) -> dict[str, Any] | None:
    try:
        event = orjson.loads(payloads.decompress(payload))
    except (zstandard.ZstdError, orjson.JSONDecodeError):
        return None
    return event if isinstance(event, dict) else None


def _dataset_facets(event: dict[str, Any], kind: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Each dataset the event names, with its facets (ingest's statements of them)."""
    listed = (
        [event.get("dataset")]
        if kind == "dataset"
        else [
            *(event.get("inputs") or []),
            *(event.get("outputs") or []),
        ]
    )
    for ds in listed:
        if not isinstance(ds, dict):
            continue
        facets, namespace, name = ds.get("facets"), ds.get("namespace"), ds.get("name")
        if isinstance(facets, dict) and isinstance(namespace, str) and isinstance(name, str):
            yield dataset_id(namespace, name), facets


def _event_chunks(conn: sa.Connection, chunk: int) -> Iterator[Sequence[Any]]:
    """Every stored event, ``chunk`` at a time in id order."""
    after = -1
    e = _events.c
    while True:
        rows = conn.execute(
            sa.select(e.id, e.kind, e.event_key, e.payload)
            .where(e.id > after)
            .order_by(e.id)
            .limit(chunk)
        ).all()
        if not rows:
            return
        after = rows[-1].id
        yield rows
