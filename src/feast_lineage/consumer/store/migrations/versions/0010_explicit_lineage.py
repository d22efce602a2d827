"""Explicit lineage: the lineage facets and jobDependencies, derived from stored events.

Adds ``feast_lineage_explicit_edges`` (every entity edge an explicit lineage
facet payload stated, keyed by owner, facet, origin and the payload's
digest) and ``feast_lineage_explicit_lineage`` (per owner, facet and origin,
the digest of the latest payload: the current edges). Then reads every
stored event that carries a ``lineage`` or ``jobDependencies`` facet and
writes the rows ingest would have written
(:mod:`...explicit_rows`): the explicit edges and pointers, the column
edges of field-level entries (a pointer replaces a stored one only with a
higher rank) and the jobs and datasets the facets name that the store
lacks. Events are read in chunks, in id order.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa
from alembic import op

from feast_lineage import canonical_json
from feast_lineage.consumer.store import codec
from feast_lineage.consumer.store.column_rows import NO_JOB, OBSERVED, column_rows
from feast_lineage.consumer.store.dialect import insert_ignore
from feast_lineage.consumer.store.explicit_rows import (
    add_explicit_rows,
    explicit_rows,
    node_key,
)
from feast_lineage.consumer.store.rows import (
    ColumnEdgeKey,
    ColumnEdgeRow,
    ColumnKey,
    ColumnLineageRow,
    ExplicitEdgeKey,
    ExplicitEdgeRow,
    ExplicitKey,
    ExplicitLineageRow,
    RowBatch,
)
from feast_lineage.explicit_lineage import Node, event_statements
from feast_lineage.identity import dataset_id, identity_uri, job_id, namespace_id, text_id

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_CHUNK = 1000


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


def _rank(event_key: str) -> str:
    """The rank ingest gave the event, from its key (time in hex, then the content digest)."""
    return f"{int(event_key[:16], 16):020d}{event_key[16:]}"


def _own_column_lineage(
    event: dict[str, Any], run_id: str | None, rank: str, time_us: int
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
            digest=canonical_json.digest(canonical_json.dumps(facet)),
            run_id=run_id,
            rank=rank,
            facet=facet,
            time_us=time_us,
        )
        out[(did, jid, OBSERVED)] = pointer
    return out


class _Found:
    def __init__(self) -> None:
        self.pointers: dict[ExplicitKey, ExplicitLineageRow] = {}
        self.edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = {}
        self.column_pointers: dict[ColumnKey, ColumnLineageRow] = {}
        self.column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
        self.nodes: dict[int, tuple[Node, str, int]] = {}  # id -> (node, producer, first seen)

    def add(self, event: dict[str, Any], row: Any) -> None:
        rank = _rank(row.event_key)
        job = event.get("job")
        own = Node("job", job["namespace"], job["name"]) if isinstance(job, dict) else None
        batch = RowBatch()
        own_columns = _own_column_lineage(event, row.run_id, rank, row.event_time_us)
        batch.column_lineage.update(own_columns)
        for statement in event_statements(event):
            rows = explicit_rows(
                statement, rank=rank, time_us=row.event_time_us, run_id=row.run_id, job=own
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


def _derive(conn: sa.Connection, pointers: sa.Table, edges: sa.Table) -> None:
    events = sa.table(
        "feast_lineage_events",
        sa.column("id", sa.BigInteger),
        sa.column("event_key", sa.String),
        sa.column("event_time_us", sa.BigInteger),
        sa.column("run_id", sa.String),
        sa.column("payload", sa.LargeBinary),
    )
    found = _Found()
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
            .limit(_CHUNK)
        ).all()
        if not rows:
            break
        after = rows[-1].id
        for row in rows:
            data = codec.decompress(bytes(row.payload))
            if b'"lineage"' in data or b'"jobDependencies"' in data:
                found.add(orjson.loads(data), row)
    _insert(conn, edges, list(found.edges.values()))
    _insert(conn, pointers, list(found.pointers.values()))
    meta = sa.MetaData()
    column_pointers = sa.Table("feast_lineage_column_lineage", meta, autoload_with=conn)
    column_edges = sa.Table("feast_lineage_column_edges", meta, autoload_with=conn)
    jobs = sa.Table("feast_lineage_jobs", meta, autoload_with=conn)
    datasets = sa.Table("feast_lineage_datasets", meta, autoload_with=conn)
    _column_pointers(conn, column_pointers, found.column_pointers)
    edge_key = [c.name for c in column_edges.primary_key.columns]
    for start in range(0, len(found.column_edges), _CHUNK):
        part = list(found.column_edges.values())[start : start + _CHUNK]
        conn.execute(insert_ignore(conn, column_edges, edge_key), part)
    _nodes(conn, jobs, datasets, found.nodes)


def _insert(conn: sa.Connection, table: sa.Table, rows: list[Any]) -> None:
    for start in range(0, len(rows), _CHUNK):
        conn.execute(table.insert(), rows[start : start + _CHUNK])


def _column_pointers(
    conn: sa.Connection, table: sa.Table, found: dict[ColumnKey, ColumnLineageRow]
) -> None:
    c = table.c
    for key, pointer in sorted(found.items()):
        stored = conn.execute(
            sa.select(c.rank).where(c.dataset_id == key[0], c.job_id == key[1], c.origin == key[2])
        ).scalar()
        if stored is None:
            conn.execute(table.insert(), [pointer])
        elif pointer["rank"] > stored:
            conn.execute(
                table.update()
                .where(c.dataset_id == key[0], c.job_id == key[1], c.origin == key[2])
                .values(rank=pointer["rank"], digest=pointer["digest"], run_id=pointer["run_id"])
            )


def _nodes(
    conn: sa.Connection,
    jobs: sa.Table,
    datasets: sa.Table,
    named: dict[int, tuple[Node, str, int]],
) -> None:
    """The jobs and datasets the facets name that the store lacks."""
    for table, kind in ((jobs, "job"), (datasets, "dataset")):
        ids = sorted(i for i, (node, _, _) in named.items() if node.kind == kind)
        known: set[int] = set()
        for start in range(0, len(ids), _CHUNK):
            part = ids[start : start + _CHUNK]
            known.update(conn.execute(sa.select(table.c.id).where(table.c.id.in_(part))).scalars())
        rows = [_node_row(*named[i]) for i in ids if i not in known]
        _insert(conn, table, rows)


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
