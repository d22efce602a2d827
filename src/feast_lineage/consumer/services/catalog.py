"""The catalog: namespaces, jobs and datasets."""

from __future__ import annotations

from feast_lineage.consumer.feast_objects import feast_object
from feast_lineage.consumer.schemas import (
    DatasetItem,
    DatasetPage,
    FeastObject,
    JobItem,
    JobPage,
    NamespaceItem,
    NamespaceList,
)
from feast_lineage.consumer.services.columns import has_column_lineage
from feast_lineage.consumer.services.graph import node_key
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store import reads
from feast_lineage.consumer.store import tables as t
from feast_lineage.event_time import to_iso


def namespace_list(read: StoreReader) -> NamespaceList:
    with read.engine.connect() as conn:
        found = reads.namespaces(conn, read.scope.ns_ids)
    items = [NamespaceItem(namespace=ns, jobs=j, datasets=d) for ns, j, d in found]
    return NamespaceList(items=items, total=len(items))


def job_page(
    read: StoreReader,
    *,
    namespace: str | None,
    search: str | None,
    limit: int,
    offset: int,
) -> JobPage:
    with read.engine.connect() as conn:
        total, rows = reads.catalog_rows(
            conn, t.jobs, read.scope.narrow(namespace).ns_ids, search, offset, limit
        )
    items = [
        JobItem(
            id=node_key("job", r.namespace, r.name),
            namespace=r.namespace,
            name=r.name,
            producer=r.producer,
            created_at=to_iso(r.created_us),
            updated_at=to_iso(r.updated_us) if r.updated_us else None,
        )
        for r in rows
    ]
    return JobPage(items=items, total=total, limit=limit, offset=offset)


def dataset_page(
    read: StoreReader,
    *,
    namespace: str | None,
    search: str | None,
    limit: int,
    offset: int,
) -> DatasetPage:
    with read.engine.connect() as conn:
        total, rows = reads.catalog_rows(
            conn, t.datasets, read.scope.narrow(namespace).ns_ids, search, offset, limit
        )
        with_columns = has_column_lineage(conn, (r.id for r in rows), read.scope)
    items = []
    for r in rows:
        feast = feast_object(
            "dataset", r.namespace, r.name, r.feast_type, {}, read.namespace_mapping
        )
        items.append(
            DatasetItem(
                id=node_key("dataset", r.namespace, r.name),
                namespace=r.namespace,
                name=r.name,
                producer=r.producer,
                created_at=to_iso(r.created_us),
                updated_at=to_iso(r.updated_us),
                datasource_uri=r.datasource_uri,
                feast=FeastObject(**feast) if feast else None,
                has_column_lineage=r.id in with_columns,
            )
        )
    return DatasetPage(items=items, total=total, limit=limit, offset=offset)
