"""What prune and reset share: the tally of rows removed and chunked deletes.

Deletes run in bounded chunks (``chunk`` rows of the driving table per
transaction), each in its own write transaction, so a prune of millions of
rows never holds the store's write lock for long and ingest keeps flowing
between chunks. Every transaction that deletes bumps the store generation
first (:func:`bump`): writers drop their caches of rows they believe stored,
and on PostgreSQL the bump waits for in-flight writers, so a facet blob is
never deleted under a writer that is about to point at it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, Connection, Engine, Table, and_, delete, or_, select

from feast_lineage.consumer.store.admin import job_versions
from feast_lineage.consumer.store.engine.meta import bump_generation, ensure_meta
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.migrations.naming import RENAMED

DEFAULT_CHUNK = 5000

# The name of each table's rows in the API: the table's name before 0008.
API_NAMES = {new: old for old, new in RENAMED.items()}
# Tables added after 0008 are named in the API without the prefix.
API_NAMES.update(
    {
        t.column_lineage.name: "column_lineage",
        t.column_edges.name: "column_edges",
        t.column_listings.name: "column_listings",
        t.explicit_lineage.name: "explicit_lineage",
        t.explicit_edges.name: "explicit_edges",
        t.explicit_statements.name: "explicit_statements",
        t.dataset_versions.name: "dataset_versions",
        t.dataset_states.name: "dataset_versions",
        # each payload a dataset facet was stated with: counted as the facets' rows
        t.dataset_facet_values.name: "openlineage_dataset_facets",
        t.io_listings.name: "io_listings",
        t.symlink_statements.name: "symlink_statements",
        **job_versions.API_NAMES,
    }
)


@dataclass
class Removed:
    """Rows removed, by kind of row.

    The kinds are the API's names (the prune and reset answers), which are
    the tables' names before migration 0008 renamed the tables: a table is
    not an API contract.
    """

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, table: str, n: int) -> None:
        if n > 0:
            self.counts[table] = self.counts.get(table, 0) + n

    def get(self, table: str) -> int:
        return self.counts.get(table, 0)


def bump(conn: Connection) -> None:
    """Bump the store generation, before a transaction's first delete."""
    ensure_meta(conn)  # a store no writer has started yet has no generation row
    bump_generation(conn)


def delete_rows(conn: Connection, table: Table, *where: ColumnElement[bool]) -> int:
    """Delete ``table``'s rows ``where`` selects; the number deleted."""
    return int(conn.execute(delete(table).where(*where)).rowcount or 0)


def _delete_runs(conn: Connection, run_ids: list[str], removed: Removed) -> None:
    """Delete runs with their inputs/outputs."""
    removed.add("openlineage_run_io", delete_rows(conn, t.run_io, t.run_io.c.run_id.in_(run_ids)))
    removed.add("openlineage_runs", delete_rows(conn, t.runs, t.runs.c.run_id.in_(run_ids)))


def _job_event_io(conn: Connection, rows: Sequence[Any], removed: Removed) -> None:
    """Delete the inputs/outputs of deleted JobEvents, unless current or named by a listing."""
    keys = {row.event_key: row.subject_id for row in rows if row.kind == "job"}
    if not keys:
        return
    j = t.jobs.c
    current = conn.execute(
        select(j.input_run, j.output_run).where(j.id.in_(set(keys.values())))
    ).all()
    # A kept listing (the job's latest before a prune's cutoff) answers as_of with them.
    lst = t.io_listings.c
    listed = conn.execute(
        select(lst.run_key).where(lst.job_id.in_(set(keys.values())), lst.run_key.in_(set(keys)))
    ).scalars()
    gone = set(keys) - {run for pair in current for run in pair} - set(listed)
    if gone:
        removed.add("openlineage_run_io", delete_rows(conn, t.run_io, t.run_io.c.run_id.in_(gone)))


def _chunked(
    engine: Engine,
    columns: tuple[Any, ...],
    where: ColumnElement[bool],
    chunk: int,
    handle: Callable[[Connection, Sequence[Any]], None],
) -> None:
    """Hand the rows ``where`` selects to ``handle``, ``chunk`` rows a write transaction.

    Rows come in the order of ``columns``' first two (a unique pair), and a
    cursor past the last chunk keeps rows that ``where`` skips (those that
    are kept) from being read again by every chunk.
    """
    first, second = columns[0], columns[1]
    after: tuple[Any, Any] | None = None
    while True:
        with write_transaction(engine) as conn:
            stmt = select(*columns).where(where)
            if after is not None:
                stmt = stmt.where(or_(first > after[0], and_(first == after[0], second > after[1])))
            rows = conn.execute(stmt.order_by(first, second).limit(chunk)).all()
            if not rows:
                return
            bump(conn)
            handle(conn, rows)
            after = (rows[-1][0], rows[-1][1])
        if len(rows) < chunk:
            return


def chunked_events(
    engine: Engine, where: ColumnElement[bool], chunk: int, removed: Removed
) -> None:
    """Delete the events ``where`` selects, in (event time, id) order."""
    e = t.events.c

    def handle(conn: Connection, rows: Sequence[Any]) -> None:
        ids = [row.id for row in rows]
        removed.add("openlineage_events", delete_rows(conn, t.events, e.id.in_(ids)))
        _job_event_io(conn, rows, removed)

    columns = (e.event_time_us, e.id, e.event_key, e.kind, e.subject_id)
    _chunked(engine, columns, where, chunk, handle)


def chunked_runs(engine: Engine, where: ColumnElement[bool], chunk: int, removed: Removed) -> None:
    """Delete the runs ``where`` selects and their inputs/outputs, by (start time, run id)."""
    r = t.runs.c

    def handle(conn: Connection, rows: Sequence[Any]) -> None:
        _delete_runs(conn, [row.run_id for row in rows], removed)

    _chunked(engine, (r.started_us, r.run_id), where, chunk, handle)
