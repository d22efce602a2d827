"""Linking datasets whose dataSource URI names the same data.

Two datasets are linked (a ``datasource`` symlink) when their dataSource
URIs are equal, or when one's URI is the identity URI the other's name
stands for (a Spark job's ``s3://bucket/path`` and a dataset named by that
path). A URI shared by many datasets, or by two of one namespace, names a
container (a database, a bucket), not a dataset, and links nothing.
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import urlsplit

from sqlalchemy import Connection, delete, select

from feast_lineage.consumer.store.engine.dialect import insert_ignore
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.cache import WriteCache
from feast_lineage.consumer.store.write.rows import DatasetRow, RowBatch, SymlinkRow

# A dataSource URI shared by datasets of one namespace names a container
# (a database, a bucket), not a dataset, and links nothing.
_MAX_URI_GROUP = 16


def _linkable(uri: str | None) -> bool:
    if uri is None:
        return False
    try:
        path = urlsplit(uri).path
    except ValueError:
        return False
    return path not in ("", "/")


class _Node(NamedTuple):
    id: int
    ns_id: int
    namespace: str
    name: str
    created_us: int


def _node(row: DatasetRow) -> _Node:
    return _Node(row["id"], row["ns_id"], row["namespace"], row["name"], row["created_us"])


def link_uris(conn: Connection, d: RowBatch, cache: WriteCache) -> list[tuple[int, int]]:
    """Link the batch's datasets to stored ones whose URIs name the same data.

    Returns the (dataset, URI) pairs handled, for :func:`.writes.remember` after commit.
    """
    # (dataset, its dataSource URI id) and (dataset, the URI id its name stands for)
    by_source = [
        (row, row["uri_id"])
        for row in d.datasets.values()
        if row["uri_id"] is not None
        and (row["id"], row["uri_id"]) not in cache.uri_links
        and _linkable(row["datasource_uri"])
    ]
    by_name = [
        (row, row["identity_uri_id"])
        for row in d.datasets.values()
        if row["identity_uri_id"] is not None
        and (row["id"], row["identity_uri_id"]) not in cache.uri_links
    ]
    if not by_source and not by_name:
        return []
    links = _Links(cache, d.uri_since)
    links.find(conn, {uri for _, uri in by_source}, {uri for _, uri in by_name})
    done: list[tuple[int, int]] = []
    for row, uri in by_source:
        links.same_source(row, uri)
        done.append((row["id"], uri))
    for row, uri in by_name:
        for other in links.by_uri.get(uri, []):
            # since the other stated the URI, and since this one existed (its name is the URI)
            links.link(other, _node(row), max(links.since(other, uri), row["created_us"]))
        done.append((row["id"], uri))
    links.write(conn)
    return done


class _Links:
    """The stored datasets sharing the batch's URIs, and the links to write."""

    def __init__(self, cache: WriteCache, uri_since: dict[tuple[int, int], int]) -> None:
        self.cache = cache
        self.uri_since = uri_since
        self.by_uri: dict[int, list[Any]] = {}
        self.by_identity: dict[int, list[Any]] = {}
        self.rows: list[SymlinkRow] = []
        self.unlink: set[int] = set()

    def find(self, conn: Connection, uri_ids: set[int], identity_ids: set[int]) -> None:
        cols = t.datasets.c
        # Two SELECTs, each on its own index (an OR of two indexed columns may
        # be planned as a table scan once the optimizer has statistics).
        base = select(
            cols.id,
            cols.ns_id,
            cols.namespace,
            cols.name,
            cols.created_us,
            cols.uri_id,
            cols.identity_uri_id,
        )
        statements = [base.where(cols.uri_id.in_(uri_ids | identity_ids)).limit(10_000)]
        if uri_ids:
            statements.append(base.where(cols.identity_uri_id.in_(uri_ids)).limit(10_000))
        found = {r.id: r for stmt in statements for r in conn.execute(stmt).all()}
        for r in found.values():
            if r.uri_id is not None:
                self.by_uri.setdefault(r.uri_id, []).append(r)
            if r.identity_uri_id is not None:
                self.by_identity.setdefault(r.identity_uri_id, []).append(r)

    def since(self, node: Any, uri: int) -> int:
        """When ``node`` first stated ``uri`` as far as is known: the batch's earliest
        statement, else (stored before) when the dataset was first seen."""
        return int(self.uri_since.get((node.id, uri), node.created_us))

    def same_source(self, row: DatasetRow, uri: int) -> None:
        me = _node(row)
        mine = self.since(me, uri)
        group = self.by_uri.get(uri, [])
        namespaces = [g.ns_id for g in group]
        container = len(group) > _MAX_URI_GROUP or len(namespaces) != len(set(namespaces))
        if container:
            # Links made before the URI turned out to name a container go too,
            # so the result does not depend on the order datasets arrived in.
            self.unlink.update(g.id for g in group if g.identity_uri_id != uri)
        else:
            for other in group:
                self.link(me, other, max(mine, self.since(other, uri)), symmetric=True)
        for other in self.by_identity.get(uri, []):
            self.link(me, other, max(mine, other.created_us))

    def link(self, a: Any, b: Any, time_us: int, *, symmetric: bool = False) -> None:
        # Equal dataSource URIs link both ways alike: one row, from the lower
        # id, whichever dataset came first. An identity link points from the
        # dataset that names the URI to the dataset that is it.
        if symmetric and b.id < a.id:
            a, b = b, a
        if a.id == b.id or (a.id, b.id) in self.cache.symlinks:
            return
        self.rows.append(
            {
                "dataset_id": a.id,
                "alias_id": b.id,
                "alias_ns_id": b.ns_id,
                "alias_namespace": b.namespace,
                "alias_name": b.name,
                "alias_type": None,
                "source": "datasource",
                "created_us": time_us,
            }
        )

    def write(self, conn: Connection) -> None:
        rows, unlink = self.rows, self.unlink
        if unlink:
            links = t.dataset_symlinks.c
            conn.execute(
                delete(t.dataset_symlinks).where(
                    links.source == "datasource",
                    links.dataset_id.in_(unlink),
                    links.alias_id.in_(unlink),
                )
            )
            rows = [r for r in rows if not (r["dataset_id"] in unlink and r["alias_id"] in unlink)]
        if rows:
            conn.execute(insert_ignore(conn, t.dataset_symlinks, ["dataset_id", "alias_id"]), rows)
