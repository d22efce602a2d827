"""The column lineage rows of one ``columnLineage`` facet of one output dataset.

Used by ingest (:mod:`feast_lineage.consumer.intake.row_builder`) and by
migration 0009, which derives the same rows from events already stored, so
both key a payload's edges the same way: by the output dataset, the job,
the origin and the digest of the payload. Ingest builds the pointer at once
and the edges only when the writer finds the payload new
(:class:`~feast_lineage.consumer.store.write.rows.PendingColumnEdges`).
"""

from __future__ import annotations

from typing import Any

from feast_lineage import canonical_json
from feast_lineage.column_lineage import field_edges, field_hash, is_indirect
from feast_lineage.consumer.store.write.rows import (
    ColumnEdgeKey,
    ColumnEdgeRow,
    ColumnLineageRow,
    ColumnReportKey,
    PendingColumnEdges,
)
from feast_lineage.identity import dataset_id, namespace_id

OBSERVED = "observed"  # stated by a columnLineage facet
DECLARED = "declared"  # stated by explicit lineage (a JobEvent's LineageFacet)
NO_JOB = 0  # the job id of a DatasetEvent's column lineage


def column_pointer(
    *,
    dataset: int,
    namespace: str,
    job: int,
    origin: str,
    digest: str,
    run_id: str | None,
    rank: str,
) -> ColumnLineageRow:
    """The row that makes ``digest`` the (dataset, job, origin)'s column lineage, ranked."""
    return {
        "dataset_id": dataset,
        "job_id": job,
        "origin": origin,
        "rank": rank,
        "digest": digest,
        "run_id": run_id,
        "ns_id": namespace_id(namespace),
    }


def column_edge_rows(
    key: ColumnReportKey, pending: PendingColumnEdges
) -> dict[ColumnEdgeKey, ColumnEdgeRow]:
    """The edge rows a payload states; ``key`` is (dataset, job, origin, digest)."""
    dataset, job, origin, digest = key
    ns_id = namespace_id(pending.namespace)
    edges: dict[ColumnEdgeKey, ColumnEdgeRow] = {}
    for edge in field_edges(pending.facet):
        src = dataset_id(edge.namespace, edge.name)
        dst_field_id, src_field_id = field_hash(edge.output_field), field_hash(edge.field)
        edges[(dataset, dst_field_id, job, origin, digest, src, src_field_id)] = {
            "dst_dataset_id": dataset,
            "dst_field_id": dst_field_id,
            "job_id": job,
            "origin": origin,
            "digest": digest,
            "src_dataset_id": src,
            "src_field_id": src_field_id,
            "dst_ns_id": ns_id,
            "dst_field": edge.output_field,
            "src_ns_id": namespace_id(edge.namespace),
            "src_namespace": edge.namespace,
            "src_name": edge.name,
            "src_field": edge.field,
            "indirect": 1 if is_indirect(edge.transformations) else 0,
            "transformations": canonical_json.dumps_str(
                [x._asdict() for x in edge.transformations]
            ),
            "created_us": pending.time_us,
        }
    return edges


def column_rows(
    *,
    dataset: int,
    namespace: str,
    job: int,
    origin: str,
    digest: str,
    run_id: str | None,
    rank: str,
    facet: Any,
    time_us: int,
) -> tuple[ColumnLineageRow, dict[ColumnEdgeKey, ColumnEdgeRow]]:
    """The pointer row and the edge rows ``facet`` states for ``dataset`` written by ``job``."""
    pointer = column_pointer(
        dataset=dataset,
        namespace=namespace,
        job=job,
        origin=origin,
        digest=digest,
        run_id=run_id,
        rank=rank,
    )
    pending = PendingColumnEdges(namespace, facet, time_us)
    return pointer, column_edge_rows((dataset, job, origin, digest), pending)
