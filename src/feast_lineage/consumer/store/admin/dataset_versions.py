"""Retention of dataset versions: prune what is older than the horizon, keep what answers.

For each dataset with rows older than the cutoff (made by events, or
states stated), the rows older than it go but three kinds: the dataset's
last version before the cutoff (so a dataset always keeps its current
version, and the first version after the cutoff its predecessor), and
the latest older rows stating its schema and its symlinks (the values
that version carries), and its latest writes, so that it keeps the
:data:`~feast_lineage.consumer.store.read.health.KEEP_WRITES` latest
writes health learns its expected interval from (a prune never turns
``stale`` into ``unknown``). The read
(:func:`~feast_lineage.consumer.store.read.dataset_versions.versions`)
answers, of the older rows left, that one version only. Its symlinks
statements older than the cutoff go but the last (what the dataset's
aliases were at the horizon). The horizon is
kept in the store's meta table, so every worker tells a pruned version's
id from an unknown one; a prune that may remove history (an event older
than its cutoff is stored) raises it before it deletes anything
(:func:`raise_horizon`), and one that cannot leaves it.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import Connection, Engine, delete, select, union

from feast_lineage.consumer.store.engine.meta import ensure_meta, read_meta, write_meta
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.read.dataset_versions import (
    HORIZON_KEY,
    ObservationRow,
    horizon,
    observations,
    versions,
)
from feast_lineage.consumer.store.read.health import KEEP_WRITES, definition_jobs
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import SORT_OFFSET

# The dataset facets whose blobs versions point at: a namespace reset keeps
# their blobs, which versions of other datasets may share.
VERSIONED_FACETS = ("schema", "lifecycleStateChange", "symlinks")


def _writes(row: ObservationRow, definitions: Collection[int]) -> bool:
    """A write health learns from (:func:`.read.health.recent_writes`): a COMPLETE run's output,
    or a DatasetEvent's row; not a run of a Feast definition job (``definitions``)."""
    if row.stated or (row.job_id is not None and row.job_id in definitions):
        return False
    return row.writes == 1 or (row.event_type is None and row.run_id is None)


def _kept(rows: list[ObservationRow], cutoff_us: int, definitions: Collection[int]) -> set[int]:
    """The ids of the rows older than the cutoff that stay."""
    older = [row for row in rows if row.time_us < cutoff_us]
    found = versions(older)
    if not found:
        return set()
    last = found[-1]
    keep = {last.row.id}
    for column in ("schema_id", "symlinks_id"):
        stating = [row for row in older if getattr(row, column) is not None]
        if stating:
            keep.add(stating[-1].id)
    # The latest writes health learns a dataset's interval from, all of them kept.
    newer = sum(1 for row in rows if row.time_us >= cutoff_us and _writes(row, definitions))
    wanted = max(0, KEEP_WRITES - newer)
    if wanted:
        keep.update(row.id for row in [r for r in older if _writes(r, definitions)][-wanted:])
    return keep


def prune_versions(engine: Engine, cutoff_us: int, *, chunk: int = 5000) -> int:
    """Delete versions older than ``cutoff_us`` but what answers; the number of rows deleted."""
    v, s, d = t.dataset_versions.c, t.dataset_states.c, t.datasets.c
    datasets: list[int] = []
    after = -1
    with engine.connect() as conn:  # by dataset, each a range of the versions' key
        while True:
            stmt = select(d.id).where(d.id > after).order_by(d.id).limit(500)
            ids = list(conn.execute(stmt).scalars())
            if not ids:
                break
            after = ids[-1]
            older = union(
                select(v.dataset_id).where(v.dataset_id.in_(ids), v.time_us < cutoff_us),
                select(s.dataset_id).where(s.dataset_id.in_(ids), s.time_us < cutoff_us),
            )
            datasets.extend(sorted(set(conn.execute(older).scalars())))
    deleted = 0
    definitions = _Definitions()
    for start in range(0, len(datasets), 100):
        with write_transaction(engine) as conn:
            for dataset in datasets[start : start + 100]:
                deleted += _prune_dataset(conn, dataset, cutoff_us, chunk, definitions)
    return deleted


class _Definitions:
    """Which jobs are Feast definition jobs, asked by their key as datasets name them."""

    def __init__(self) -> None:
        self._known: dict[int, bool] = {}

    def among(self, conn: Connection, jobs: Collection[int | None]) -> set[int]:
        asked = {j for j in jobs if j is not None and j not in self._known}
        found = set(definition_jobs(conn, asked))
        self._known.update((j, j in found) for j in asked)
        return {j for j in jobs if j is not None and self._known[j]}


def _prune_dataset(
    conn: Connection, dataset: int, cutoff_us: int, chunk: int, definitions: _Definitions
) -> int:
    """Delete the rows of ``dataset`` older than the cutoff but those that answer."""
    rows = observations(conn, dataset)
    keep = _kept(rows, cutoff_us, definitions.among(conn, {r.job_id for r in rows}))
    deleted = 0
    for table in (t.dataset_versions, t.dataset_states):
        stated = table is t.dataset_states
        gone = [
            r.id for r in rows if r.time_us < cutoff_us and r.id not in keep and r.stated == stated
        ]
        for first in range(0, len(gone), chunk):
            drop = delete(table).where(
                table.c.dataset_id == dataset, table.c.id.in_(gone[first : first + chunk])
            )
            deleted += int(conn.execute(drop).rowcount or 0)
    return deleted + _prune_symlink_statements(conn, dataset, cutoff_us)


def _prune_symlink_statements(conn: Connection, dataset: int, cutoff_us: int) -> int:
    """Delete the dataset's symlinks statements older than the cutoff but the last of them."""
    st = t.symlink_statements.c
    cutoff_rank = f"{cutoff_us + SORT_OFFSET:020d}"
    last = conn.execute(
        select(st.rank)
        .where(st.dataset_id == dataset, st.rank < cutoff_rank)
        .order_by(st.rank.desc())
        .limit(1)
    ).scalar_one_or_none()
    if last is None:
        return 0
    drop = delete(t.symlink_statements).where(st.dataset_id == dataset, st.rank < last)
    return int(conn.execute(drop).rowcount or 0)


def raise_horizon(conn: Connection, cutoff_us: int) -> None:
    """Make ``cutoff_us`` the retention horizon, unless one later is set.

    A prune raises it before it deletes anything: a read of the past is
    refused before it (and a job's facets are not read from events below
    it) while the prune runs, not only once it is done.
    """
    ensure_meta(conn)
    if read_meta(conn, HORIZON_KEY) is None or (horizon(conn) or 0) < cutoff_us:
        write_meta(conn, HORIZON_KEY, str(cutoff_us))
