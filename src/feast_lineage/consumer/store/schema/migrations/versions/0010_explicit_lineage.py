"""Explicit lineage: the lineage facets and jobDependencies, derived from stored events.

Adds ``feast_lineage_explicit_edges`` (every entity edge an explicit lineage
facet payload stated, keyed by owner, facet, origin and the payload's
digest) and ``feast_lineage_explicit_lineage`` (per owner, facet and origin,
the digest of the latest payload: the current edges). Then reads every
stored event that carries a ``lineage`` or ``jobDependencies`` facet and
writes the rows ingest would have written (frozen in
:mod:`..frozen.explicit_0010`: a later change to ingest does not change
what this does): the explicit edges and pointers, the column edges of
field-level entries (a pointer replaces a stored one only with a higher
rank) and the jobs and datasets the facets name that the store lacks.

Events are read in chunks, in id order, and each chunk's rows are written
before the next is read, so memory stays bounded whatever the store's size:
a row keyed once (an edge, a node) is inserted unless one is stored under
its key, which keeps the first seen; a pointer is inserted, or replaces the
stored one when its rank is higher, which keeps the highest rank. Both give
what deriving the whole store at once would.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage.consumer.store.schema.migrations.chunks import chunk_size
from feast_lineage.consumer.store.schema.migrations.frozen.column_rows_0009 import (
    NO_JOB,
    OBSERVED,
    ColumnEdgeKey,
    ColumnEdgeRow,
    ColumnKey,
    ColumnLineageRow,
    column_rows,
)
from feast_lineage.consumer.store.schema.migrations.frozen.explicit_0010 import (
    EventRows,
    ExplicitEdgeKey,
    ExplicitEdgeRow,
    ExplicitKey,
    ExplicitLineageRow,
    Node,
    add_explicit_rows,
    event_statements,
    explicit_rows,
    insert_ignore,
    node_key,
)
from feast_lineage.consumer.store.schema.migrations.frozen.ids_0009 import (
    dataset_id,
    identity_uri,
    job_id,
    namespace_id,
    text_id,
)
from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import (
    decompress,
    digest,
    dumps,
    rank,
)

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

K = TypeVar("K", bound=tuple[Any, ...])


def upgrade() -> None:
    pointers = op.create_table(
        "feast_lineage_explicit_lineage",
        sa.Column("owner_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("facet", sa.String(32), primary_key=True),
        sa.Column("origin", sa.String(16), primary_key=True),
        sa.Column("rank", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(32), nullable=False),
        sa.Column("ns_id", sa.BigInteger, nullable=False),
    )
    edges = op.create_table(
        "feast_lineage_explicit_edges",
        sa.Column("owner_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("facet", sa.String(32), primary_key=True),
        sa.Column("origin", sa.String(16), primary_key=True),
        sa.Column("digest", sa.String(32), primary_key=True),
        sa.Column("src_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("dst_id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("edge_type", sa.String(32), primary_key=True),
        sa.Column("src_kind", sa.String(16), nullable=False),
        sa.Column("dst_kind", sa.String(16), nullable=False),
        sa.Column("src_ns_id", sa.BigInteger, nullable=False),
        sa.Column("dst_ns_id", sa.BigInteger, nullable=False),
        sa.Column("created_us", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_ol_explicit_edges_src", edges.name, ["src_id"], unique=False)
    op.create_index("ix_ol_explicit_edges_dst", edges.name, ["dst_id"], unique=False)
    op.create_index("ix_ol_explicit_edges_src_ns", edges.name, ["src_ns_id"], unique=False)
    op.create_index("ix_ol_explicit_edges_dst_ns", edges.name, ["dst_ns_id"], unique=False)
    op.create_index("ix_ol_explicit_lineage_ns", pointers.name, ["ns_id"], unique=False)
    _derive(op.get_bind(), pointers, edges)


def downgrade() -> None:
    op.drop_table("feast_lineage_explicit_edges")
    op.drop_table("feast_lineage_explicit_lineage")


def _own_column_lineage(
    event: dict[str, Any], run_id: str | None, event_rank: str, time_us: int
) -> dict[ColumnKey, ColumnLineageRow]:
    """The column pointers the event's own columnLineage facets gave (migration 0009's)."""
    if "dataset" in event and "job" not in event:
        stated = [(event["dataset"], NO_JOB)]
    else:
        jid = job_id(event["job"]["namespace"], event["job"]["name"])
        stated = [(ds, jid) for ds in event.get("outputs") or []]
    out: dict[ColumnKey, ColumnLineageRow] = {}
    for ds, jid in stated:
        facet = (ds.get("facets") or {}).get("columnLineage")
        if not isinstance(facet, dict):
            continue
        did = dataset_id(ds["namespace"], ds["name"])
        pointer, _ = column_rows(
            dataset=did,
            namespace=ds["namespace"],
            job=jid,
            origin=OBSERVED,
            digest=digest(dumps(facet)),
            run_id=run_id,
            rank=event_rank,
            facet=facet,
            time_us=time_us,
        )
        out[(did, jid, OBSERVED)] = pointer
    return out


class _Found:
    """The rows of one chunk of events: the first seen of each key, or its highest rank."""

    def __init__(self) -> None:
        self.pointers: dict[ExplicitKey, ExplicitLineageRow] = {}
        self.edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = {}
        self.column_pointers: dict[ColumnKey, ColumnLineageRow] = {}
        self.column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
        self.nodes: dict[int, tuple[Node, str, int]] = {}  # id -> (node, producer, first seen)

    def add(self, event: dict[str, Any], row: Any) -> None:
        event_rank = rank(row.event_key)
        job = event.get("job")
        own = Node("job", job["namespace"], job["name"]) if isinstance(job, dict) else None
        batch = EventRows()
        own_columns = _own_column_lineage(event, row.run_id, event_rank, row.event_time_us)
        batch.column_lineage.update(own_columns)
        for statement in event_statements(event):
            rows = explicit_rows(
                statement, rank=event_rank, time_us=row.event_time_us, run_id=row.run_id, job=own
            )
            add_explicit_rows(batch, rows)
            for edge in statement.edges:
                for node in (edge.src, edge.dst):
                    self.nodes.setdefault(
                        node_key(node), (node, str(event.get("producer")), row.event_time_us)
                    )
        for key, pointer in batch.explicit_lineage.items():
            if key not in self.pointers or pointer["rank"] > self.pointers[key]["rank"]:
                self.pointers[key] = pointer
        for explicit_key, explicit_edge in batch.explicit_edges.items():
            self.edges.setdefault(explicit_key, explicit_edge)
        for column_key, column_pointer in batch.column_lineage.items():
            if own_columns.get(column_key) is column_pointer:
                continue  # migration 0009 wrote it
            old = self.column_pointers.get(column_key)
            if old is None or column_pointer["rank"] > old["rank"]:
                self.column_pointers[column_key] = column_pointer
        for column_edge_key, column_edge in batch.column_edges.items():
            self.column_edges.setdefault(column_edge_key, column_edge)


class _Tables:
    def __init__(self, conn: sa.Connection, pointers: sa.Table, edges: sa.Table) -> None:
        meta = sa.MetaData()
        self.pointers, self.edges = pointers, edges
        self.column_pointers = sa.Table("feast_lineage_column_lineage", meta, autoload_with=conn)
        self.column_edges = sa.Table("feast_lineage_column_edges", meta, autoload_with=conn)
        self.jobs = sa.Table("feast_lineage_jobs", meta, autoload_with=conn)
        self.datasets = sa.Table("feast_lineage_datasets", meta, autoload_with=conn)


def _derive(conn: sa.Connection, pointers: sa.Table, edges: sa.Table) -> None:
    tables = _Tables(conn, pointers, edges)
    chunk = chunk_size()
    for rows in _event_chunks(conn, chunk):
        found = _Found()
        for row in rows:
            data = decompress(bytes(row.payload))
            if b'"lineage"' in data or b'"jobDependencies"' in data:
                found.add(orjson.loads(data), row)
        _write(conn, tables, found, chunk)


def _event_chunks(conn: sa.Connection, chunk: int) -> Iterator[Sequence[Any]]:
    events = sa.table(
        "feast_lineage_events",
        sa.column("id", sa.BigInteger),
        sa.column("event_key", sa.String),
        sa.column("event_time_us", sa.BigInteger),
        sa.column("run_id", sa.String),
        sa.column("payload", sa.LargeBinary),
    )
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
            return
        after = rows[-1].id
        yield rows


def _write(conn: sa.Connection, tables: _Tables, found: _Found, chunk: int) -> None:
    """One chunk's rows, merged with what earlier chunks (and 0009) wrote."""
    _insert_new(conn, tables.edges, list(found.edges.values()), chunk)
    _keep_higher(
        conn,
        tables.pointers,
        found.pointers,
        ("owner_id", "facet", "origin"),
        ("rank", "digest"),
        chunk,
    )
    _keep_higher(
        conn,
        tables.column_pointers,
        found.column_pointers,
        ("dataset_id", "job_id", "origin"),
        ("rank", "digest", "run_id"),
        chunk,
    )
    _insert_new(conn, tables.column_edges, list(found.column_edges.values()), chunk)
    _nodes(conn, tables.jobs, tables.datasets, found.nodes, chunk)


def _insert(conn: sa.Connection, table: sa.Table, rows: Sequence[Any], chunk: int) -> None:
    for start in range(0, len(rows), chunk):
        conn.execute(table.insert(), rows[start : start + chunk])


def _insert_new(conn: sa.Connection, table: sa.Table, rows: Sequence[Any], chunk: int) -> None:
    """Insert ``rows``, leaving any stored under the same key as it is (the first seen)."""
    statement = insert_ignore(conn, table, [c.name for c in table.primary_key.columns])
    for start in range(0, len(rows), chunk):
        conn.execute(statement, rows[start : start + chunk])


def _keep_higher(
    conn: sa.Connection,
    table: sa.Table,
    found: dict[K, Any],
    keys: tuple[str, ...],
    replaced: tuple[str, ...],
    chunk: int,
) -> None:
    """Insert each pointer, or replace the ``replaced`` columns of a stored one of lower rank.

    ``keys`` are the table's key columns, in the order of ``found``'s keys.
    """
    if not found:
        return
    c = table.c
    stored: dict[tuple[Any, ...], str] = {}
    firsts = sorted({key[0] for key in found})
    for start in range(0, len(firsts), chunk):
        stmt = sa.select(*(c[k] for k in keys), c.rank).where(
            c[keys[0]].in_(firsts[start : start + chunk])
        )
        stored.update((tuple(r[:-1]), r[-1]) for r in conn.execute(stmt))
    ordered = sorted(found.items())
    _insert(conn, table, [row for key, row in ordered if key not in stored], chunk)
    higher = [
        {
            **{f"k_{k}": v for k, v in zip(keys, key, strict=True)},
            **{f"v_{n}": row[n] for n in replaced},
        }
        for key, row in ordered
        if key in stored and row["rank"] > stored[key]
    ]
    update = (
        table.update()
        .where(*(c[k] == sa.bindparam(f"k_{k}") for k in keys))
        .values({n: sa.bindparam(f"v_{n}") for n in replaced})
    )
    for start in range(0, len(higher), chunk):
        conn.execute(update, higher[start : start + chunk])


def _nodes(
    conn: sa.Connection,
    jobs: sa.Table,
    datasets: sa.Table,
    named: dict[int, tuple[Node, str, int]],
    chunk: int,
) -> None:
    """The jobs and datasets the facets name that the store lacks."""
    for table, kind in ((jobs, "job"), (datasets, "dataset")):
        ids = sorted(i for i, (node, _, _) in named.items() if node.kind == kind)
        known: set[int] = set()
        for start in range(0, len(ids), chunk):
            part = ids[start : start + chunk]
            known.update(conn.execute(sa.select(table.c.id).where(table.c.id.in_(part))).scalars())
        rows = [_node_row(*named[i]) for i in ids if i not in known]
        _insert(conn, table, rows, chunk)


def _node_row(node: Node, producer: str, time_us: int) -> dict[str, Any]:
    base = {
        "id": node_key(node),
        "ns_id": namespace_id(node.namespace),
        "namespace": node.namespace,
        "name": node.name,
        "created_us": time_us,
    }
    if node.kind == "job":  # only named: a stub, as a parent job is
        return {
            **base,
            "producer": None,
            "updated_us": 0,
            "input_rank": None,
            "input_run": None,
            "output_rank": None,
            "output_run": None,
        }
    uri = identity_uri(node.namespace, node.name)
    return {
        **base,
        "producer": producer,
        "updated_us": time_us,
        "datasource_uri": None,
        "uri_id": None,
        "uri_rank": None,
        "identity_uri_id": text_id(uri) if uri is not None else None,
        "feast_type": None,
        "feast_project": None,
    }
