"""The rows of one explicit lineage statement: its pointer, its entity edges, its column edges.

Used by ingest (:mod:`feast_lineage.consumer.intake.explicit`) and by
migration 0010, which derives the same rows from events already stored, so
both key a payload's edges the same way: by the owner, the facet, the
origin and the digest of the payload.
"""

from __future__ import annotations

from typing import NamedTuple

from feast_lineage import canonical_json
from feast_lineage.consumer.store.write.column_rows import NO_JOB, column_rows
from feast_lineage.consumer.store.write.rows import (
    ColumnEdgeKey,
    ColumnEdgeRow,
    ColumnLineageRow,
    ExplicitEdgeKey,
    ExplicitEdgeRow,
    ExplicitLineageRow,
    RowBatch,
    keep_latest_column_lineage,
    keep_latest_explicit,
    list_column_lineage,
)
from feast_lineage.explicit_lineage import DATASET_LINEAGE, Node, Statement
from feast_lineage.identity import namespace_id, node_id


class ExplicitRows(NamedTuple):
    pointer: ExplicitLineageRow
    edges: dict[ExplicitEdgeKey, ExplicitEdgeRow]
    column_pointers: list[ColumnLineageRow]
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow]


def node_key(node: Node) -> int:
    return node_id(node.kind, node.namespace, node.name)


def explicit_rows(
    statement: Statement, *, rank: str, time_us: int, run_id: str | None, job: Node | None
) -> ExplicitRows:
    """The rows ``statement`` states; ``job`` is the event's job (None for a DatasetEvent)."""
    owner = node_key(statement.owner)
    digest = canonical_json.digest(canonical_json.dumps(statement.payload))
    facet, origin = statement.facet, statement.origin
    pointer: ExplicitLineageRow = {
        "owner_id": owner,
        "facet": facet,
        "origin": origin,
        "rank": rank,
        "digest": digest,
        "ns_id": namespace_id(statement.owner.namespace),
    }
    edges: dict[ExplicitEdgeKey, ExplicitEdgeRow] = {}
    for edge in statement.edges:
        src, dst = node_key(edge.src), node_key(edge.dst)
        edges[(owner, facet, origin, digest, src, dst, edge.edge_type)] = {
            "owner_id": owner,
            "facet": facet,
            "origin": origin,
            "digest": digest,
            "src_id": src,
            "dst_id": dst,
            "edge_type": edge.edge_type,
            "src_kind": edge.src.kind,
            "dst_kind": edge.dst.kind,
            "src_ns_id": namespace_id(edge.src.namespace),
            "dst_ns_id": namespace_id(edge.dst.namespace),
            "created_us": time_us,
        }
    # A dataset facet's field entries belong to the dataset as its event's job
    # wrote it (no job: a DatasetEvent); a job facet's to the job.
    writer = job if statement.facet == DATASET_LINEAGE else statement.owner
    writer_id = node_key(writer) if writer is not None else NO_JOB
    column_pointers: list[ColumnLineageRow] = []
    column_edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
    for target, stated in statement.columns:
        column_pointer, stated_edges = column_rows(
            dataset=node_key(target),
            namespace=target.namespace,
            job=writer_id,
            origin=origin,
            digest=canonical_json.digest(canonical_json.dumps(stated)),
            run_id=run_id,
            rank=rank,
            facet=stated,
            time_us=time_us,
        )
        column_pointers.append(column_pointer)
        column_edges.update(stated_edges)
    return ExplicitRows(pointer, edges, column_pointers, column_edges)


def add_explicit_rows(out: RowBatch, rows: ExplicitRows) -> None:
    """Add one statement's rows to its event's batch: its pointer, its statement, its edges.

    When the event's own ``columnLineage`` facet already gave a column
    pointer for the same (dataset, job, origin), that facet wins: the
    statement's field entries for it are left out.
    """
    pointer = rows.pointer
    keep_latest_explicit(
        out.explicit_lineage, {(pointer["owner_id"], pointer["facet"], pointer["origin"]): pointer}
    )
    statement_key = (pointer["owner_id"], pointer["facet"], pointer["origin"], pointer["rank"])
    out.explicit_statements.setdefault(
        statement_key,
        {
            "owner_id": pointer["owner_id"],
            "facet": pointer["facet"],
            "origin": pointer["origin"],
            "rank": pointer["rank"],
            "digest": pointer["digest"],
        },
    )
    for edge_key, edge in rows.edges.items():
        out.explicit_edges.setdefault(edge_key, edge)
    for column_pointer in rows.column_pointers:
        key = (column_pointer["dataset_id"], column_pointer["job_id"], column_pointer["origin"])
        stated = out.column_lineage.get(key)
        if stated is not None and stated["digest"] != column_pointer["digest"]:
            continue
        keep_latest_column_lineage(out.column_lineage, {key: column_pointer})
        list_column_lineage(out, column_pointer)
        payload = (key[0], key[1], key[2], column_pointer["digest"])
        for column_key, column_edge in rows.column_edges.items():
            if (column_key[0], column_key[2], column_key[3], column_key[4]) == payload:
                out.column_edges.setdefault(column_key, column_edge)
