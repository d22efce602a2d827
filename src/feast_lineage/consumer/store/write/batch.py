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

from sqlalchemy import BindParameter, Connection, Table, bindparam
from sqlalchemy.dialects import sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.dml import Insert

from feast_lineage.consumer.store.engine.dialect import insert_ignore, upsert
from feast_lineage.consumer.store.engine.meta import read_generation
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write import merge_rules as mr
from feast_lineage.consumer.store.write import sqlite_touch
from feast_lineage.consumer.store.write.cache import WriteCache
from feast_lineage.consumer.store.write.column_rows import column_edge_rows
from feast_lineage.consumer.store.write.job_versions import (
    remember_run_parts,
    write_job_versions,
)
from feast_lineage.consumer.store.write.rows import (
    ColumnEdgeKey,
    ColumnReportKey,
    FacetValueRow,
    RowBatch,
    blob_text,
    reduce_runs,
)
from feast_lineage.consumer.store.write.run_durations import (
    note_run_bounds,
    remember_run_bounds,
)
from feast_lineage.consumer.store.write.sqlite_touch import (
    TOUCH_DATASET,
    TOUCH_DATASET_FACET,
    TOUCH_JOB_FACET,
    TOUCH_MAX_EVENTS,
    TOUCH_RUN,
    Touch,
    no_touch,
)
from feast_lineage.consumer.store.write.upserts import assignments, changes
from feast_lineage.consumer.store.write.uri_links import LinkedUris, link_uris

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


def _fetch(
    conn: Connection,
    cache: WriteCache,
    key: str,
    build: Callable[[list[BindParameter[Any]]], Any],
    values: Sequence[Any],
) -> list[Sequence[Any]]:
    """The rows of ``build(parameters)``'s query for ``values``, compiled once per store and size.

    ``build`` gets a bound parameter per value (to put in an ``IN``). As in
    :func:`_execute`, the statement is compiled once and runs on the
    driver's cursor; ``values`` are padded to the next power of two with
    their last, so a few shapes serve every size (a repeat in ``IN`` is harmless).
    """
    if not values:
        return []
    size = max(8, 1 << (len(values) - 1).bit_length())
    sql = cache.sql.get((key, (str(size),)))
    if sql is None:
        dialect = conn.dialect
        if dialect.name == "sqlite":
            dialect = sqlite.dialect(paramstyle="named")
        sql = str(build([bindparam(f"v{i}") for i in range(size)]).compile(dialect=dialect))
        cache.sql[(key, (str(size),))] = sql
    params = {f"v{i}": v for i, v in enumerate(values)}
    params.update({f"v{i}": values[-1] for i in range(len(values), size)})
    dbapi = conn.dialect.loaded_dbapi
    cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
    try:
        cursor.execute(sql, params)
        return list(cursor.fetchall())
    except dbapi.Error as err:
        raise DBAPIError.instance(sql, None, err, dbapi.Error, dialect=conn.dialect) from None
    finally:
        cursor.close()


def write_derived(conn: Connection, d: RowBatch, cache: WriteCache) -> LinkedUris:
    """Apply ``d`` inside the caller's transaction; pass the result to :func:`remember`."""
    cache.sync(read_generation(conn))
    ex = partial(_execute, conn, cache)
    small = len(d.events) <= TOUCH_MAX_EVENTS
    touch = partial(sqlite_touch.touch, ex) if small and conn.dialect.name == "sqlite" else no_touch
    ex("events", partial(insert_ignore, conn, t.events, ["event_key"]), d.events)
    blobs = [{"id": k, "payload": blob_text(v)} for k, v in d.blobs.items() if k not in cache.blobs]
    ex("blobs", partial(insert_ignore, conn, t.facet_blobs, ["id"]), blobs)
    _write_merged(conn, ex, touch, d, cache)
    _write_once(conn, ex, d, cache)
    states = [
        r for r in d.dataset_states.values() if not cache.dataset_states.covers(r["id"], r["rank"])
    ]
    ex("dataset_states", _upsert(conn, t.dataset_states, mr.DATASET_STATES), states)
    fetch = partial(_fetch, conn, cache)
    note_run_bounds(conn, fetch, [run["run_id"] for run in d.runs], cache)
    write_job_versions(conn, d, ex, fetch, cache)
    return link_uris(conn, d, cache)


Execute = Callable[[str, Callable[[], Any], Rows], int]


def _upsert(conn: Connection, table: Table, rules: mr.TableRules) -> Callable[[], Insert]:
    """The statement that merges rows into ``table`` by its rules (:mod:`.merge_rules`)."""
    return lambda: upsert(conn, table, rules.key, assignments(rules), changes(rules))


def _write_merged(
    conn: Connection, ex: Execute, touch: Touch, d: RowBatch, cache: WriteCache
) -> None:
    """Upsert the rows of the tables whose rows merge: jobs, datasets, runs, run_io, edges,
    pointers.

    Each row matches at most one (its key is unique in the list): when a
    narrower UPDATE (:mod:`.sqlite_touch`) moved them all, the upsert would
    change nothing and is not sent.
    """
    ex("jobs", _upsert(conn, t.jobs, mr.JOBS), list(d.jobs.values()))
    datasets = list(d.datasets.values())
    if not touch("datasets", TOUCH_DATASET, datasets):
        ex("datasets", _upsert(conn, t.datasets, mr.DATASETS), datasets)
    runs = reduce_runs(d.runs)
    if not touch("runs", TOUCH_RUN, runs):
        ex("runs", _upsert(conn, t.runs, mr.RUNS), runs)
    facet_tables = (
        (t.job_facets, d.job_facets, mr.JOB_FACETS, TOUCH_JOB_FACET),
        (t.dataset_facets, d.dataset_facets, mr.FACETS, TOUCH_DATASET_FACET),
    )
    for table, facets, rules, touch_sql in facet_tables:
        rows = list(facets.values())
        if not touch(table.name, touch_sql, rows):
            ex(table.name, _upsert(conn, table, rules), rows)
    values: list[FacetValueRow] = [
        {"owner_id": k[0], "name": k[1], "blob_id": k[2], "first_rank": rank}
        for k, rank in d.dataset_facet_values.items()
        if not cache.facet_values.covers(k, rank)
    ]
    ex("facet_values", _upsert(conn, t.dataset_facet_values, mr.DATASET_FACET_VALUES), values)
    run_io = [r for k, r in d.run_io.items() if not cache.run_io.covers(k, r["first_us"])]
    ex("run_io", _upsert(conn, t.run_io, mr.RUN_IO), run_io)
    edges = [r for k, r in d.edges.items() if not cache.edges.covers(k, r["created_us"])]
    ex("edges", _upsert(conn, t.lineage_edges, mr.EDGES), edges)
    pointers = (
        (t.column_lineage, mr.COLUMN_LINEAGE, list(d.column_lineage.values())),
        (t.explicit_lineage, mr.EXPLICIT_LINEAGE, list(d.explicit_lineage.values())),
    )
    for table, rules, pointer_rows in pointers:
        ex(table.name, _upsert(conn, table, rules), pointer_rows)


def _write_once(conn: Connection, ex: Execute, d: RowBatch, cache: WriteCache) -> None:
    """Insert the rows of the tables written once, skipping those known stored."""
    column_edges = [
        row for key, row in d.column_edges.items() if _report(key) not in cache.column_reports
    ]
    for report, pending in d.column_reports.items():
        if report not in cache.column_reports:
            column_edges.extend(column_edge_rows(report, pending).values())
    once: tuple[tuple[str, Table, Rows], ...] = (
        ("io_listings", t.io_listings, list(d.io_listings.values())),
        (
            "listings",
            t.symlink_listings,
            [r for k, r in d.listings.items() if k not in cache.listings],
        ),
        ("symlink_statements", t.symlink_statements, list(d.symlink_statements.values())),
        (
            "symlinks",
            t.dataset_symlinks,
            [r for k, r in d.symlinks.items() if k not in cache.symlinks],
        ),
        ("column_edges", t.column_edges, column_edges),
        ("column_listings", t.column_listings, list(d.column_listings.values())),
        (
            "explicit_edges",
            t.explicit_edges,
            [r for k, r in d.explicit_edges.items() if k[:4] not in cache.explicit_reports],
        ),
        ("explicit_statements", t.explicit_statements, list(d.explicit_statements.values())),
        ("dataset_versions", t.dataset_versions, list(d.dataset_versions.values())),
    )
    for key, table, rows in once:
        primary_key = [column.name for column in table.primary_key]
        ex(key, partial(insert_ignore, conn, table, primary_key), rows)


def _report(key: ColumnEdgeKey) -> ColumnReportKey:
    """The payload a column edge belongs to: (dataset, job, origin, digest)."""
    return key[0], key[2], key[3], key[4]


def remember(d: RowBatch, cache: WriteCache, uri_links: LinkedUris) -> None:
    """After a commit: note the rows that are now known to be stored."""
    for link, since in uri_links:
        cache.uri_links.add(link, since)
    for blob in d.blobs:
        cache.blobs.add(blob)
    for edge_key, edge in d.edges.items():
        cache.edges.add(edge_key, edge["created_us"])
    for symlink in d.symlinks:
        cache.symlinks.add(symlink)
    for listing in d.listings:
        cache.listings.add(listing)
    for io_key, io in d.run_io.items():
        cache.run_io.add(io_key, io["first_us"])
    for value_key, rank in d.dataset_facet_values.items():
        cache.facet_values.add(value_key, rank)
    for key in d.column_edges:
        cache.column_reports.add(_report(key))
    for report in d.column_reports:
        cache.column_reports.add(report)
    for explicit in d.explicit_edges:
        cache.explicit_reports.add(explicit[:4])
    for state in d.dataset_states.values():
        cache.dataset_states.note(state["id"], state["rank"])
    for source in d.job_versions.payloads:
        cache.job_sources.add(source)
    remember_run_bounds(cache)
    remember_run_parts(cache)
