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

from sqlalchemy import ColumnElement, Connection, and_, case, delete, literal_column, select
from sqlalchemy.sql.dml import Insert

from feast_lineage.consumer.store.engine.dialect import upsert
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


# ((dataset, URI id), the time it was linked from): handled, for :func:`.batch.remember`.
LinkedUris = list[tuple[tuple[int, int], int]]


def link_uris(conn: Connection, d: RowBatch, cache: WriteCache) -> LinkedUris:
    """Link the batch's datasets to stored ones whose URIs name the same data.

    A link dates from when both datasets had named the URI (:meth:`_Links.since`).
    A later batch with an earlier statement moves it earlier, so where each
    dataset names its URI from its first event, arrival order does not change
    it. Returns the (dataset, URI) pairs handled with their times, for
    :func:`.batch.remember` after commit.
    """
    # (dataset, its dataSource URI id) and (dataset, the URI id its name stands for);
    # skipped when linked before from a time no later than this batch's first naming
    by_source = [
        (row, uri)
        for row in d.datasets.values()
        if (uri := row["uri_id"]) is not None
        and not cache.uri_links.covers((row["id"], uri), d.uri_since[(row["id"], uri)])
        and _linkable(row["datasource_uri"])
    ]
    by_name = [
        (row, uri)
        for row in d.datasets.values()
        if (uri := row["identity_uri_id"]) is not None
        and not cache.uri_links.covers((row["id"], uri), row["created_us"])
    ]
    if not by_source and not by_name:
        return []
    links = _Links(cache, d)
    links.find(conn, {uri for _, uri in by_source}, {uri for _, uri in by_name})
    # A named dataset's own first event, read only where there is something to link to it
    # (the rows of by_source were found: they hold their own URI)
    links.load_created(conn, {row["id"] for row, uri in by_name if links.by_uri.get(uri)})
    done: LinkedUris = []
    for row, uri in by_source:
        since = links.since(row["id"], uri)
        links.same_source(row, uri, since)
        done.append(((row["id"], uri), since))
    for row, uri in by_name:
        # its name is the URI: since it was first seen (an upper bound where nothing links
        # to it: the cache then skips only batches that could not move a link earlier)
        since = links.created.get(row["id"], row["created_us"])
        for other in links.by_uri.get(uri, []):
            links.link(other, _node(row), max(links.since(other.id, uri), since))
        done.append(((row["id"], uri), since))
    links.write(conn)
    return done


class _Links:
    """The stored datasets sharing the batch's URIs, and the links to write."""

    def __init__(self, cache: WriteCache, batch: RowBatch) -> None:
        self.cache = cache
        self.batch = batch
        self.created: dict[int, int] = {}  # dataset -> its first event's time, as stored
        self.by_uri: dict[int, list[Any]] = {}
        self.by_identity: dict[int, list[Any]] = {}
        self.rows: dict[tuple[int, int], SymlinkRow] = {}  # by (dataset, alias)
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
        self.created = {r.id: r.created_us for r in found.values()}
        for r in found.values():
            if r.uri_id is not None:
                self.by_uri.setdefault(r.uri_id, []).append(r)
            if r.identity_uri_id is not None:
                self.by_identity.setdefault(r.identity_uri_id, []).append(r)

    def load_created(self, conn: Connection, datasets: set[int]) -> None:
        """The stored first-event times of ``datasets`` not found already."""
        if missing := datasets - self.created.keys():
            cols = t.datasets.c
            stmt = select(cols.id, cols.created_us).where(cols.id.in_(missing))
            self.created.update((r.id, r.created_us) for r in conn.execute(stmt))

    def since(self, dataset: int, uri: int) -> int:
        """When ``dataset`` named ``uri``, as far as is known: its earliest statement in this
        batch (or an earlier one this process linked it from), else (it named the URI before
        this batch) its first event.

        Exact where a dataset's events are delivered in order, and where it names its URI
        from its first event on; the store keeps no history of a dataset's URI, so a
        dataset stored before that named the URI only later dates from its first event.
        """
        stated = self.batch.uri_since.get((dataset, uri))
        if stated is None:
            return int(self.created[dataset])
        known = self.cache.uri_links.least((dataset, uri))
        return stated if known is None else min(stated, known)

    def same_source(self, row: DatasetRow, uri: int, mine: int) -> None:
        me = _node(row)
        group = self.by_uri.get(uri, [])
        namespaces = [g.ns_id for g in group]
        container = len(group) > _MAX_URI_GROUP or len(namespaces) != len(set(namespaces))
        if container:
            # Links made before the URI turned out to name a container go too,
            # so the result does not depend on the order datasets arrived in.
            self.unlink.update(g.id for g in group if g.identity_uri_id != uri)
        else:
            for other in group:
                self.link(me, other, max(mine, self.since(other.id, uri)), symmetric=True)
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
        known = self.rows.get((a.id, b.id))
        if known is not None and known["created_us"] <= time_us:
            return
        self.rows[(a.id, b.id)] = {
            "dataset_id": a.id,
            "alias_id": b.id,
            "alias_ns_id": b.ns_id,
            "alias_namespace": b.namespace,
            "alias_name": b.name,
            "alias_type": None,
            "source": "datasource",
            "created_us": time_us,
        }

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
            rows = {k: r for k, r in rows.items() if not (k[0] in unlink and k[1] in unlink)}
        if rows:
            conn.execute(_earliest(conn), list(rows.values()))


def _earliest(conn: Connection) -> Insert:
    """Insert a dataSource link, or move a stored one's time earlier (never later).

    A ``symlinks`` facet's link of the same two datasets is left as it is.
    """

    def moved(stored: Any, new: Any) -> ColumnElement[bool]:
        # A literal, not a bound value: MySQL's executemany takes no parameter after VALUES.
        source = stored.source == literal_column("'datasource'")
        return and_(source, new.created_us < stored.created_us)

    return upsert(
        conn,
        t.dataset_symlinks,
        ["dataset_id", "alias_id"],
        lambda stored, new: {
            "created_us": case((moved(stored, new), new.created_us), else_=stored.created_us)
        },
        moved,
    )
