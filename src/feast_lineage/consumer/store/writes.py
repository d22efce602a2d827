"""The repository's write side: applying derived event rows in one transaction.

Every statement is an idempotent upsert whose outcome does not depend on the
order events arrive in (see :mod:`feast_lineage.consumer.intake.derive`):
facets, run state and a job's latest inputs and outputs keep the highest
rank, start times the minimum, and inserts of edges, symlinks, run
inputs/outputs and blobs ignore rows that exist.

:class:`WriteCache` remembers rows this process knows are stored (blobs,
edges, symlinks and what symlinks facets list, run inputs/outputs) so a
steady stream of events does not rewrite them. It is dropped whenever the
store's ``generation`` changes, which reset and prune bump in the same
transaction as their deletes.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from sqlalchemy import Connection, and_, case, delete, or_, select, text, update
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

from feast_lineage.consumer.intake.derive import JOB_IO_COLUMNS, Derived, Row, blob_text
from feast_lineage.consumer.store import tables as t
from feast_lineage.consumer.store.dialect import insert_ignore, upsert

GENERATION_KEY = "generation"
# A dataSource URI shared by datasets of one namespace names a container
# (a database, a bucket), not a dataset, and links nothing.
_MAX_URI_GROUP = 16


class _BoundedSet:
    """A set that forgets its least recently added items past ``limit``."""

    def __init__(self, limit: int) -> None:
        self._items: OrderedDict[Any, None] = OrderedDict()
        self._limit = limit

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def add(self, item: Any) -> None:
        if item in self._items:
            self._items.move_to_end(item)  # still in use: forget others first
            return
        self._items[item] = None
        if len(self._items) > self._limit:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()


class WriteCache:
    """Rows known to be in the store, valid for one store generation."""

    # About 200 bytes an entry: five sets of 32k stay under 35 MB a process.
    def __init__(self, limit: int = 32_768) -> None:
        self.generation: str | None = None
        self.blobs = _BoundedSet(limit)
        self.edges = _BoundedSet(limit)
        self.symlinks = _BoundedSet(limit)
        self.listings = _BoundedSet(limit)
        self.run_io = _BoundedSet(limit)
        self.uri_links = _BoundedSet(limit)
        self.sql: dict[tuple[str, tuple[str, ...]], str] = {}

    def sync(self, generation: str) -> None:
        if generation != self.generation:
            self.blobs.clear()
            self.edges.clear()
            self.symlinks.clear()
            self.listings.clear()
            self.run_io.clear()
            self.uri_links.clear()
            self.generation = generation


def ensure_meta(conn: Connection) -> None:
    conn.execute(insert_ignore(conn, t.meta, ["key"]), [{"key": GENERATION_KEY, "value": "0"}])


def write_meta(conn: Connection, key: str, value: str) -> None:
    """Set a value of the store's meta table."""
    stmt = upsert(conn, t.meta, ["key"], lambda _c, x: {"value": x.value})
    conn.execute(stmt, [{"key": key, "value": value}])


def _generation_sql(dialect: Dialect) -> str:
    # The driver's own parameter style: sqlite3 takes :name, psycopg and the
    # MySQL drivers %(name)s. "key" is a reserved word in MySQL: quoted.
    if dialect.name == "sqlite":
        key, lock = ":key", ""
    elif dialect.name in {"mysql", "mariadb"}:
        key, lock = "%(key)s", " LOCK IN SHARE MODE"
    else:
        key, lock = "%(key)s", " FOR SHARE"
    column = dialect.identifier_preparer.quote(t.meta.c.key.name)
    return f"SELECT value FROM {t.meta.name} WHERE {column} = {key}{lock}"


def read_generation(conn: Connection) -> str:
    """The store generation, locked against a concurrent reset until commit.

    Read once per write transaction, so straight through the driver (the
    query is fixed; SQLAlchemy's statement machinery costs more than it).
    """
    sql = _generation_sql(conn.dialect)
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql, {"key": GENERATION_KEY})
        row = cursor.fetchone()
    finally:
        cursor.close()
    return str(row[0]) if row is not None else "0"


def bump_generation(conn: Connection) -> None:
    current = int(read_generation(conn))
    conn.execute(
        update(t.meta).where(t.meta.c.key == GENERATION_KEY).values(value=str(current + 1))
    )


def _reduce_runs(rows: list[Row]) -> list[Row]:
    by_id: dict[str, Row] = {}
    for row in rows:
        old = by_id.get(row["run_id"])
        if old is None:
            by_id[row["run_id"]] = dict(row)
            continue
        if row["state_rank"] > old["state_rank"]:
            old["state"], old["state_rank"], old["ended_us"] = (
                row["state"],
                row["state_rank"],
                row["ended_us"],
            )
        old["first_event_us"] = min(old["first_event_us"], row["first_event_us"])
        old["last_event_us"] = max(old["last_event_us"], row["last_event_us"])
        starts = [s for s in (old["start_event_us"], row["start_event_us"]) if s is not None]
        old["start_event_us"] = min(starts) if starts else None
        for key in ("parent_run_id", "root_run_id"):  # the least, so order does not matter
            ids = [i for i in (old[key], row[key]) if i is not None]
            old[key] = min(ids) if ids else None
    for row in by_id.values():
        start = row["start_event_us"]
        row["started_us"] = start if start is not None else row["first_event_us"]
    return list(by_id.values())


def _greater(a: Any, b: Any) -> Any:
    return case((a > b, a), else_=b)


def _lesser(a: Any, b: Any) -> Any:
    return case((a < b, a), else_=b)


def _node_set(c: Any, x: Any) -> dict[str, Any]:
    newer = x.updated_us > c.updated_us
    return {
        "producer": case((or_(newer, c.producer.is_(None)), x.producer), else_=c.producer),
        "updated_us": _greater(x.updated_us, c.updated_us),
        "created_us": _lesser(x.created_us, c.created_us),
    }


def _node_where(c: Any, x: Any) -> Any:
    return or_(x.updated_us > c.updated_us, x.created_us < c.created_us)


def _later(c: Any, x: Any, rank: str) -> Any:
    """The incoming row's ``rank`` column is present and above the stored one."""
    return and_(x[rank].is_not(None), or_(c[rank].is_(None), x[rank] > c[rank]))


def _job_set(c: Any, x: Any) -> dict[str, Any]:
    values = _node_set(c, x)
    for rank, run in JOB_IO_COLUMNS:
        later = _later(c, x, rank)
        values[rank] = case((later, x[rank]), else_=c[rank])
        values[run] = case((later, x[run]), else_=c[run])
    return values


def _job_where(c: Any, x: Any) -> Any:
    return or_(_node_where(c, x), *(_later(c, x, rank) for rank, _run in JOB_IO_COLUMNS))


def _dataset_set(c: Any, x: Any) -> dict[str, Any]:
    better_uri = and_(x.uri_rank.is_not(None), or_(c.uri_rank.is_(None), x.uri_rank > c.uri_rank))
    values = _node_set(c, x)
    values.update(
        datasource_uri=case((better_uri, x.datasource_uri), else_=c.datasource_uri),
        uri_id=case((better_uri, x.uri_id), else_=c.uri_id),
        uri_rank=case((better_uri, x.uri_rank), else_=c.uri_rank),
        feast_type=case((c.feast_type.is_(None), x.feast_type), else_=c.feast_type),
        feast_project=case((c.feast_project.is_(None), x.feast_project), else_=c.feast_project),
    )
    return values


def _dataset_where(c: Any, x: Any) -> Any:
    return or_(
        _node_where(c, x),
        and_(x.uri_rank.is_not(None), or_(c.uri_rank.is_(None), x.uri_rank > c.uri_rank)),
        and_(c.feast_type.is_(None), x.feast_type.is_not(None)),
    )


def _run_set(c: Any, x: Any) -> dict[str, Any]:
    wins = x.state_rank > c.state_rank
    start = case(
        (c.start_event_us.is_(None), x.start_event_us),
        (x.start_event_us.is_(None), c.start_event_us),
        else_=_lesser(x.start_event_us, c.start_event_us),
    )
    first = _lesser(x.first_event_us, c.first_event_us)
    return {
        "state": case((wins, x.state), else_=c.state),
        "state_rank": case((wins, x.state_rank), else_=c.state_rank),
        "ended_us": case((wins, x.ended_us), else_=c.ended_us),
        "first_event_us": first,
        "last_event_us": _greater(x.last_event_us, c.last_event_us),
        "start_event_us": start,
        "started_us": case((start.is_(None), first), else_=start),
        # A run names one parent; should its events disagree, the least id wins
        # (the same whatever order they arrive in).
        "parent_run_id": _least_present(x.parent_run_id, c.parent_run_id),
        "root_run_id": _least_present(x.root_run_id, c.root_run_id),
    }


def _run_where(c: Any, x: Any) -> Any:
    """Whether ``_run_set`` would change the stored run (else it is not rewritten)."""
    return or_(
        x.state_rank > c.state_rank,
        x.last_event_us > c.last_event_us,
        x.first_event_us < c.first_event_us,
        _lowers(x.start_event_us, c.start_event_us),
        _lowers(x.parent_run_id, c.parent_run_id),
        _lowers(x.root_run_id, c.root_run_id),
    )


def _lowers(new: Any, old: Any) -> Any:
    """``new`` would replace ``old`` under "the least present value wins"."""
    return and_(new.is_not(None), or_(old.is_(None), new < old))


def _least_present(a: Any, b: Any) -> Any:
    return case((a.is_(None), b), (b.is_(None), a), else_=_lesser(a, b))


def _ranked_set(c: Any, x: Any) -> dict[str, Any]:
    later = x.rank > c.rank
    return {
        "rank": case((later, x.rank), else_=c.rank),
        "blob_id": case((later, x.blob_id), else_=c.blob_id),
    }


def _ranked_where(c: Any, x: Any) -> Any:
    return x.rank > c.rank


def _linkable(uri: str) -> bool:
    try:
        path = urlsplit(uri).path
    except ValueError:
        return False
    return path not in ("", "/")


def _uri_symlinks(conn: Connection, d: Derived, cache: WriteCache) -> list[tuple[int, int]]:
    """Link datasets whose dataSource URI names the same data.

    Returns the (dataset, URI) pairs handled, for :func:`remember` after commit.
    """
    todo = [
        row
        for row in d.datasets.values()
        if row.get("uri_id") is not None
        and (row["id"], row["uri_id"]) not in cache.uri_links
        and _linkable(row["datasource_uri"])
    ]
    identity = [
        row
        for row in d.datasets.values()
        if row.get("identity_uri_id") is not None
        and (row["id"], row["identity_uri_id"]) not in cache.uri_links
    ]
    if not todo and not identity:
        return []
    uri_ids = {row["uri_id"] for row in todo}
    identity_ids = {row["identity_uri_id"] for row in identity}
    cols = t.datasets.c
    # Two SELECTs, each on its own index (an OR of two indexed columns may
    # be planned as a table scan once the optimizer has statistics).
    base = select(cols.id, cols.ns_id, cols.namespace, cols.name, cols.uri_id, cols.identity_uri_id)
    found = {
        r.id: r
        for stmt in (
            base.where(cols.uri_id.in_(uri_ids | identity_ids)).limit(10_000),
            base.where(cols.identity_uri_id.in_(uri_ids)).limit(10_000) if uri_ids else None,
        )
        if stmt is not None
        for r in conn.execute(stmt).all()
    }.values()
    by_uri: dict[int, list[Any]] = {}
    by_identity: dict[int, list[Any]] = {}
    for r in found:
        if r.uri_id is not None:
            by_uri.setdefault(r.uri_id, []).append(r)
        if r.identity_uri_id is not None:
            by_identity.setdefault(r.identity_uri_id, []).append(r)
    rows: list[Row] = []
    done: list[tuple[int, int]] = []
    unlink: set[int] = set()

    def link(a: Any, b: Any, time_us: int, *, symmetric: bool = False) -> None:
        # Equal dataSource URIs link both ways alike: one row, from the lower
        # id, whichever dataset came first. An identity link points from the
        # dataset that names the URI to the dataset that is it.
        if symmetric and b.id < a.id:
            a, b = b, a
        if a.id == b.id or (a.id, b.id) in cache.symlinks:
            return
        rows.append(
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

    for row in todo:
        me = _Node(row["id"], row["ns_id"], row["namespace"], row["name"])
        group = by_uri.get(row["uri_id"], [])
        namespaces = [g.ns_id for g in group]
        container = len(group) > _MAX_URI_GROUP or len(namespaces) != len(set(namespaces))
        if container:
            # Links made before the URI turned out to name a container go too,
            # so the result does not depend on the order datasets arrived in.
            unlink.update(g.id for g in group if g.identity_uri_id != row["uri_id"])
        else:
            for other in group:
                link(me, other, row["updated_us"], symmetric=True)
        for other in by_identity.get(row["uri_id"], []):
            link(me, other, row["updated_us"])
        done.append((row["id"], row["uri_id"]))
    for row in identity:
        me = _Node(row["id"], row["ns_id"], row["namespace"], row["name"])
        for other in by_uri.get(row["identity_uri_id"], []):
            link(other, me, row["updated_us"])
        done.append((row["id"], row["identity_uri_id"]))
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
    return done


class _Node(NamedTuple):
    id: int
    ns_id: int
    namespace: str
    name: str


def _execute(
    conn: Connection, cache: WriteCache, key: str, build: Callable[[], Insert], rows: list[Row]
) -> int:
    """Run ``build()``'s statement for every row, compiled once per store.

    The hot path skips SQLAlchemy's per-statement and per-row work: the
    statement is compiled to SQL once (named parameters) and the rows go
    straight to the driver's ``executemany`` on the transaction's own DBAPI
    connection. Driver errors are wrapped as SQLAlchemy errors, as
    ``Connection.execute`` would. Returns the number of rows changed.
    """
    if not rows:
        return 0
    columns = tuple(rows[0])
    sql = cache.sql.get((key, columns))
    if sql is None:
        dialect = conn.dialect
        if dialect.name == "sqlite":
            dialect = sqlite.dialect(paramstyle="named")
        sql = str(build().compile(dialect=dialect, column_keys=list(columns)))
        cache.sql[(key, columns)] = sql
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.executemany(sql, rows)
        return int(cursor.rowcount)
    except dbapi.Error as err:
        raise DBAPIError.instance(sql, None, err, dbapi.Error, dialect=conn.dialect) from None
    finally:
        cursor.close()


# SQLite rewrites the entries of every index on a column that an UPDATE
# assigns, whether its value changes or not (PostgreSQL's HOT updates and
# InnoDB leave unchanged keys alone). The upserts assign indexed columns: a
# facet's blob id, a dataset's URI id, a run's start time and parent. On
# SQLite these UPDATEs go first: they move rows whose indexed values stay as
# they are, assigning unindexed columns only, to exactly what the upsert would
# make of them, so the upsert's WHERE then leaves them alone. A one-event
# transaction writes about a quarter fewer pages. A row they do not match
# (new, or with an indexed value to change) is the upsert's, as before; when
# they moved every row, the upsert is not sent at all.
# Only for small transactions: in a large one, many rows share each page
# written, and the extra statements cost more than the pages they save.
_TOUCH_MAX_EVENTS = 16
_TOUCH_FACET = (
    "UPDATE {table} SET rank = :rank"
    " WHERE owner_id = :owner_id AND name = :name AND blob_id = :blob_id AND rank < :rank"
)
_TOUCH_DATASET = f"""UPDATE {t.datasets.name} SET
 producer = CASE WHEN :updated_us > updated_us OR producer IS NULL
  THEN :producer ELSE producer END,
 updated_us = MAX(updated_us, :updated_us),
 created_us = MIN(created_us, :created_us),
 uri_rank = CASE WHEN :uri_rank > uri_rank OR (uri_rank IS NULL AND :uri_rank IS NOT NULL)
  THEN :uri_rank ELSE uri_rank END,
 feast_project = COALESCE(feast_project, :feast_project)
WHERE id = :id
 AND (:updated_us > updated_us OR :created_us < created_us OR :uri_rank > uri_rank
  OR (uri_rank IS NULL AND :uri_rank IS NOT NULL))
 AND (:uri_rank IS NULL OR uri_rank >= :uri_rank
  OR (uri_id = :uri_id AND datasource_uri = :datasource_uri))
 AND (feast_type IS NOT NULL OR :feast_type IS NULL)"""
_TOUCH_RUN = f"""UPDATE {t.runs.name} SET
 state = CASE WHEN :state_rank > state_rank THEN :state ELSE state END,
 ended_us = CASE WHEN :state_rank > state_rank THEN :ended_us ELSE ended_us END,
 state_rank = MAX(state_rank, :state_rank),
 first_event_us = MIN(first_event_us, :first_event_us),
 last_event_us = MAX(last_event_us, :last_event_us)
WHERE run_id = :run_id
 AND (:state_rank > state_rank OR :last_event_us > last_event_us
  OR :first_event_us < first_event_us)
 AND (:start_event_us IS NULL OR start_event_us <= :start_event_us)
 AND (start_event_us IS NOT NULL OR :first_event_us >= first_event_us)
 AND (:parent_run_id IS NULL OR parent_run_id <= :parent_run_id)
 AND (:root_run_id IS NULL OR root_run_id <= :root_run_id)"""


def _touch(ex: Callable[..., int], key: str, sql: str, rows: list[Row]) -> bool:
    """Run a narrower UPDATE; True when it moved every row, leaving the upsert nothing."""
    return bool(rows) and ex(f"touch:{key}", lambda: text(sql), rows) == len(rows)


def _no_touch(key: str, sql: str, rows: list[Row]) -> bool:
    return False


def write_derived(conn: Connection, d: Derived, cache: WriteCache) -> list[tuple[int, int]]:
    """Apply ``d`` inside the caller's transaction; pass the result to :func:`remember`."""
    cache.sync(read_generation(conn))
    ex = partial(_execute, conn, cache)
    small = len(d.events) <= _TOUCH_MAX_EVENTS
    touch = partial(_touch, ex) if small and conn.dialect.name == "sqlite" else _no_touch
    ex("events", lambda: insert_ignore(conn, t.events, ["event_key"]), d.events)
    blobs = [{"id": k, "payload": blob_text(v)} for k, v in d.blobs.items() if k not in cache.blobs]
    ex("blobs", lambda: insert_ignore(conn, t.facet_blobs, ["id"]), blobs)
    ex(
        "jobs",
        lambda: upsert(conn, t.jobs, ["id"], _job_set, _job_where),
        list(d.jobs.values()),
    )
    # Each row matches at most one (its key is unique in the list): when the
    # narrower UPDATE moved them all, the upsert would change nothing.
    datasets = list(d.datasets.values())
    if not touch("datasets", _TOUCH_DATASET, datasets):
        ex(
            "datasets",
            lambda: upsert(conn, t.datasets, ["id"], _dataset_set, _dataset_where),
            datasets,
        )
    runs = _reduce_runs(d.runs)
    if not touch("runs", _TOUCH_RUN, runs):
        ex("runs", lambda: upsert(conn, t.runs, ["run_id"], _run_set, _run_where), runs)
    run_io = [row for key, row in d.run_io.items() if key not in cache.run_io]
    ex(
        "run_io",
        lambda: insert_ignore(conn, t.run_io, ["run_id", "dataset_id", "direction"]),
        run_io,
    )
    edges = [row for key, row in d.edges.items() if key not in cache.edges]
    ex(
        "edges",
        lambda: insert_ignore(conn, t.lineage_edges, ["src_id", "dst_id", "edge_type"]),
        edges,
    )
    listings = [row for key, row in d.listings.items() if key not in cache.listings]
    ex(
        "listings",
        lambda: insert_ignore(conn, t.symlink_listings, ["blob_id", "alias_id"]),
        listings,
    )
    symlinks = [row for key, row in d.symlinks.items() if key not in cache.symlinks]
    ex(
        "symlinks",
        lambda: insert_ignore(conn, t.dataset_symlinks, ["dataset_id", "alias_id"]),
        symlinks,
    )
    for table, facets in (
        (t.job_facets, d.job_facets),
        (t.dataset_facets, d.dataset_facets),
    ):
        rows = list(facets.values())
        if not touch(table.name, _TOUCH_FACET.format(table=table.name), rows):
            ex(
                table.name,
                partial(upsert, conn, table, ["owner_id", "name"], _ranked_set, _ranked_where),
                rows,
            )
    return _uri_symlinks(conn, d, cache)


def remember(d: Derived, cache: WriteCache, uri_links: list[tuple[int, int]]) -> None:
    """After a commit: note the rows that are now known to be stored."""
    for link in uri_links:
        cache.uri_links.add(link)
    for blob in d.blobs:
        cache.blobs.add(blob)
    for edge in d.edges:
        cache.edges.add(edge)
    for symlink in d.symlinks:
        cache.symlinks.add(symlink)
    for listing in d.listings:
        cache.listings.add(listing)
    for io in d.run_io:
        cache.run_io.add(io)
