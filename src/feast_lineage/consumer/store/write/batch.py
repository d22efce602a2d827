"""The repository's write side: applying a batch of event rows in one transaction.

:func:`write_derived` sends each table's rows of a
:class:`~feast_lineage.consumer.store.write.rows.RowBatch` in one statement
(idempotent upserts and inserts, see :mod:`.upserts`), skipping rows the
:class:`~.write_cache.WriteCache` knows are stored, and on SQLite trying
:mod:`.sqlite_touch`'s narrower UPDATEs first; :func:`remember` updates the
cache after the commit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import DBAPIError

from feast_lineage.consumer.store.engine.dialect import insert_ignore, upsert
from feast_lineage.consumer.store.engine.meta import read_generation
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write import sqlite_touch
from feast_lineage.consumer.store.write.cache import WriteCache
from feast_lineage.consumer.store.write.column_rows import column_edge_rows
from feast_lineage.consumer.store.write.job_versions import write_job_versions
from feast_lineage.consumer.store.write.rows import (
    ColumnEdgeKey,
    ColumnReportKey,
    RowBatch,
    blob_text,
)
from feast_lineage.consumer.store.write.sqlite_touch import (
    TOUCH_DATASET,
    TOUCH_FACET,
    TOUCH_MAX_EVENTS,
    TOUCH_RUN,
    no_touch,
)
from feast_lineage.consumer.store.write.upserts import (
    column_set,
    dataset_set,
    dataset_where,
    digest_set,
    job_set,
    job_where,
    ranked_set,
    ranked_where,
    reduce_runs,
    run_set,
    run_where,
)
from feast_lineage.consumer.store.write.uri_links import link_uris

Rows = Sequence[Mapping[str, Any]]


def _execute(
    conn: Connection, cache: WriteCache, key: str, build: Callable[[], Any], rows: Rows
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


def write_derived(conn: Connection, d: RowBatch, cache: WriteCache) -> list[tuple[int, int]]:
    """Apply ``d`` inside the caller's transaction; pass the result to :func:`remember`."""
    cache.sync(read_generation(conn))
    ex = partial(_execute, conn, cache)
    small = len(d.events) <= TOUCH_MAX_EVENTS
    touch = partial(sqlite_touch.touch, ex) if small and conn.dialect.name == "sqlite" else no_touch
    ex("events", lambda: insert_ignore(conn, t.events, ["event_key"]), d.events)
    blobs = [{"id": k, "payload": blob_text(v)} for k, v in d.blobs.items() if k not in cache.blobs]
    ex("blobs", lambda: insert_ignore(conn, t.facet_blobs, ["id"]), blobs)
    ex(
        "jobs",
        lambda: upsert(conn, t.jobs, ["id"], job_set, job_where),
        list(d.jobs.values()),
    )
    # Each row matches at most one (its key is unique in the list): when the
    # narrower UPDATE moved them all, the upsert would change nothing.
    datasets = list(d.datasets.values())
    if not touch("datasets", TOUCH_DATASET, datasets):
        ex(
            "datasets",
            lambda: upsert(conn, t.datasets, ["id"], dataset_set, dataset_where),
            datasets,
        )
    runs = reduce_runs(d.runs)
    if not touch("runs", TOUCH_RUN, runs):
        ex("runs", lambda: upsert(conn, t.runs, ["run_id"], run_set, run_where), runs)
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
        if not touch(table.name, TOUCH_FACET.format(table=table.name), rows):
            ex(
                table.name,
                partial(upsert, conn, table, ["owner_id", "name"], ranked_set, ranked_where),
                rows,
            )
    ex(
        "column_lineage",
        lambda: upsert(
            conn, t.column_lineage, ["dataset_id", "job_id", "origin"], column_set, ranked_where
        ),
        list(d.column_lineage.values()),
    )
    column_edges = [
        row for key, row in d.column_edges.items() if _report(key) not in cache.column_reports
    ]
    for report, pending in d.column_reports.items():
        if report not in cache.column_reports:
            column_edges.extend(column_edge_rows(report, pending).values())
    ex("column_edges", lambda: insert_ignore(conn, t.column_edges, _COLUMN_EDGE_KEY), column_edges)
    ex(
        "explicit_lineage",
        lambda: upsert(
            conn, t.explicit_lineage, ["owner_id", "facet", "origin"], digest_set, ranked_where
        ),
        list(d.explicit_lineage.values()),
    )
    explicit_edges = [
        row for key, row in d.explicit_edges.items() if key[:4] not in cache.explicit_reports
    ]
    ex(
        "explicit_edges",
        lambda: insert_ignore(conn, t.explicit_edges, _EXPLICIT_EDGE_KEY),
        explicit_edges,
    )
    write_job_versions(conn, d.job_versions, ex)
    return link_uris(conn, d, cache)


_COLUMN_EDGE_KEY = [
    "dst_dataset_id",
    "dst_field_id",
    "job_id",
    "origin",
    "digest",
    "src_dataset_id",
    "src_field_id",
]


_EXPLICIT_EDGE_KEY = [
    "owner_id",
    "facet",
    "origin",
    "digest",
    "src_id",
    "dst_id",
    "edge_type",
]


def _report(key: ColumnEdgeKey) -> ColumnReportKey:
    """The payload a column edge belongs to: (dataset, job, origin, digest)."""
    return key[0], key[2], key[3], key[4]


def remember(d: RowBatch, cache: WriteCache, uri_links: list[tuple[int, int]]) -> None:
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
    for key in d.column_edges:
        cache.column_reports.add(_report(key))
    for report in d.column_reports:
        cache.column_reports.add(report)
    for explicit in d.explicit_edges:
        cache.explicit_reports.add(explicit[:4])
