"""The Datasets list, filtered and sorted by any of its columns.

A dataset's producer and update time may be a hidden job's: a scoped caller
gets null for them (:func:`.common.dataset_producer`), and sorts by the values
it is shown, so the order tells nothing of a hidden one either.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, Connection, func, select

from feast_lineage.consumer.store.read.common import (
    NsIds,
    dataset_producer,
    dataset_updated,
    in_ids,
    where_all,
)
from feast_lineage.consumer.store.read.sorting import Sort, ordering
from feast_lineage.consumer.store.schema import tables as t


class DatasetRecord(NamedTuple):
    """A dataset of the Datasets list (a row of :func:`dataset_rows`' query maps onto it)."""

    id: int
    namespace: str
    name: str
    producer: str | None  # null: none, or set by an event the caller may not see
    feast_type: str | None
    datasource_uri: str | None
    created_us: int
    updated_us: int | None  # null: set by an event the caller may not see


def _sort_values(sort: Sort, producer: Any, updated: Any) -> tuple[ColumnElement[Any], ...]:
    d = t.datasets.c
    return {
        "name": (d.name,),
        "namespace": (d.namespace,),
        "producer": (producer,),
        "updated": (updated,),
        "kind": (d.feast_type,),
    }[sort.key]


def dataset_rows(
    conn: Connection,
    ns_ids: NsIds,
    search: str | None,
    sort: Sort,
    offset: int,
    limit: int,
    *,
    visible: NsIds,
) -> tuple[int, list[DatasetRecord]]:
    """A page of the datasets of ``ns_ids`` in ``sort`` order, and their total.

    ``visible``: the namespaces the caller may see (``ns_ids`` may be fewer, a filter),
    which decide what it is shown of a dataset's producer and update time.
    """
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
    producer = dataset_producer(t.datasets, visible)
    updated = dataset_updated(t.datasets, visible)
    stmt = (
        select(
            d.id,
            d.namespace,
            d.name,
            producer.label("producer"),
            d.feast_type,
            d.datasource_uri,
            d.created_us,
            updated.label("updated_us"),
        )
        .where(*where)
        .order_by(
            *ordering(_sort_values(sort, producer, updated), sort, (d.namespace, d.name, d.id))
        )
        .limit(limit)
        .offset(offset)
    )
    return total, [DatasetRecord._make(row) for row in conn.execute(stmt)]
