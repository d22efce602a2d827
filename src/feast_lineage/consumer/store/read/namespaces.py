"""Namespace reads: every visible namespace with its job and dataset counts."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import (
    Connection,
    func,
    select,
)

from feast_lineage.consumer.store.read.common import (
    NsIds,
    in_ids,
    where_all,
)
from feast_lineage.consumer.store.schema import tables as t


class NamespaceCounts(NamedTuple):
    namespace: str
    jobs: int
    datasets: int


def namespaces(conn: Connection, ns_ids: NsIds) -> list[NamespaceCounts]:
    """Every visible namespace with its jobs and datasets, by name."""
    counts: dict[str, list[int]] = {}
    for slot, table in ((0, t.jobs), (1, t.datasets)):
        c = table.c
        stmt = (
            select(c.namespace, func.count())
            .where(*where_all(in_ids(c.ns_id, ns_ids)))
            .group_by(c.ns_id, c.namespace)
        )
        for namespace, n in conn.execute(stmt).all():
            counts.setdefault(namespace, [0, 0])[slot] += int(n)
    return sorted(NamespaceCounts(ns, n[0], n[1]) for ns, n in counts.items())
