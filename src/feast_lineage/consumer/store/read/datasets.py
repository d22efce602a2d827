"""The Datasets list, filtered and sorted by any of its columns."""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, func, select

from feast_lineage.consumer.store.read.common import NsIds, in_ids, where_all
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t


class DatasetRecord(NamedTuple):
    """A dataset of the Datasets list (a row of :func:`dataset_rows`' query maps onto it)."""

    id: int
    namespace: str
    name: str
    producer: str | None
    feast_type: str | None
    datasource_uri: str | None
    created_us: int
    updated_us: int


def _sort_values(sort: Sort) -> tuple[ColumnElement[Any], ...]:
    d = t.datasets.c
    return {
        "name": (d.name,),
        "namespace": (d.namespace,),
        "producer": (d.producer,),
        "updated": (d.updated_us,),
        "kind": (d.feast_type,),
    }[sort.key]


def dataset_rows(
    conn: Connection,
    ns_ids: NsIds,
    search: str | None,
    sort: Sort,
    offset: int,
    limit: int,
) -> tuple[int, list[DatasetRecord]]:
    """A page of datasets in ``sort`` order, and their total."""
    d = t.datasets.c
    where = where_all(
        in_ids(d.ns_id, ns_ids),
        d.name.icontains(search, autoescape=True) if search else None,
    )
    total = int(
        conn.execute(select(func.count()).select_from(t.datasets).where(*where)).scalar_one()
    )
    if offset >= total:
        return total, []
    stmt = (
        select(
            d.id,
            d.namespace,
            d.name,
            d.producer,
            d.feast_type,
            d.datasource_uri,
            d.created_us,
            d.updated_us,
        )
        .where(*where)
        .order_by(*ordering(_sort_values(sort), sort, (d.namespace, d.name, d.id)))
        .limit(limit)
        .offset(offset)
    )
    return total, [DatasetRecord._make(row) for row in conn.execute(stmt)]
