"""What issue 38's and 39's history rows cost ingest in SQL alone: a floor under their cost.

A fresh SQLite store is filled with ``--warm`` events of the standard
workload (:mod:`bench.workload`), then ``--events`` more in batches of
``--batch``, through the real intake and writer (``parse_events`` and
``IngestPipeline.write_now``, as :mod:`bench.ingest_trees`), with the
process CPU of those measured. Every statement the measured batches send
(``executemany`` included) is recorded with its parameters, and a copy of
the store as it stood before them (after the warm events) is kept.

Then, on fresh copies of that store, through one raw ``sqlite3``
connection of an engine (the store's pragmas), in the recorded
transactions, alternating for ``--rounds`` rounds:

- **all**: every recorded statement;
- **without history**: the same, less the writes (``INSERT``, ``UPDATE``,
  ``DELETE``) into the tables issues 38 and 39 added (:data:`HISTORY`).

The difference is what those writes cost in SQL, in the context of the
rest of the transaction: a floor under their cost at ingest, whatever the
Python that derives them costs (it is the statements alone, fed their
parameters; the reads that derive them are not counted, nor the columns
the issues added to older tables). It is given in CPU µs an event
(``time.process_time``: SQLite runs in this process) beside the ingest's
own CPU an event of the same run.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.ingest_sql_floor --events 10000 --batch 100 --rounds 5
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import orjson

from bench import ingest_trees
from bench.ingest_trees import ROOT
from bench.workload import Workload, WorkloadConfig
from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.event_time import now_us
from feast_lineage.server import tune_gc

# The tables issues 38 and 39 added (migrations 0012 to 0026), which ingest writes.
HISTORY = frozenset(
    f"feast_lineage_{name}"
    for name in (
        "dataset_versions",
        "dataset_states",
        "job_versions",
        "job_sources",
        "run_versions",
        "io_listings",
        "column_listings",
        "symlink_statements",
        "explicit_statements",
        "dataset_facet_values",
    )
)
_WRITTEN = re.compile(r"^\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)", re.I)
Recorded = tuple[str, Any, bool]  # SQL, parameters, executemany


def history_write(sql: str) -> bool:
    """Whether ``sql`` writes one of the :data:`HISTORY` tables."""
    found = _WRITTEN.match(sql)
    return found is not None and found.group(1) in HISTORY


class _Log:
    """Where the recording connections write, while ``on``."""

    on: ClassVar[bool] = False
    statements: ClassVar[list[Recorded]] = []

    @classmethod
    def add(cls, sql: str, params: Any, many: bool) -> None:
        if cls.on:
            cls.statements.append((sql, params, many))


class _RecordingCursor(sqlite3.Cursor):
    def execute(self, sql: str, params: Any = (), /) -> _RecordingCursor:
        _Log.add(sql, params, False)
        super().execute(sql, params)
        return self

    def executemany(self, sql: str, seq: Any, /) -> _RecordingCursor:
        rows = list(seq)
        _Log.add(sql, rows, True)
        super().executemany(sql, rows)
        return self


class _RecordingConnection(sqlite3.Connection):
    """A ``sqlite3`` connection that records what it is sent: the writer sends most of its
    rows through the driver, not through SQLAlchemy's events."""

    def cursor(self, factory: Any = _RecordingCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, params: Any = (), /) -> sqlite3.Cursor:
        cursor: _RecordingCursor = self.cursor()
        return cursor.execute(sql, params)

    def executemany(self, sql: str, seq: Any, /) -> sqlite3.Cursor:
        cursor: _RecordingCursor = self.cursor()
        return cursor.executemany(sql, seq)

    def commit(self) -> None:
        _Log.add("COMMIT", (), False)
        super().commit()

    def rollback(self) -> None:
        _Log.add("ROLLBACK", (), False)
        super().rollback()


def _fill(
    db: Path, warm: int, events: int, batch: int, snapshot: Path
) -> tuple[float, list[Recorded]]:
    """Fill ``db``; copy it to ``snapshot`` after the warm events; the measured events'
    CPU seconds and statements."""
    connect = sqlite3.dbapi2.connect  # what SQLAlchemy's pysqlite dialect calls
    sqlite3.dbapi2.connect = partial(connect, factory=_RecordingConnection)  # type: ignore[assignment]
    try:
        engine = create_store_engine(f"sqlite:///{db}")
        upgrade_schema(engine)
    finally:
        sqlite3.dbapi2.connect = connect
    pipeline, memo = IngestPipeline(engine), FacetMemo()
    codec: dict[str, Any] = {"codec": pipeline.codec} if hasattr(pipeline, "codec") else {}
    workload = Workload(WorkloadConfig())
    tune_gc()

    def ingest(body: bytes) -> None:
        parsed = parse_events(body, now_us(), max_events=10_000, memo=memo, **codec)
        pipeline.write_now([r for r in parsed.results if not isinstance(r, Exception)])

    for _ in range(warm // batch):
        ingest(orjson.dumps(workload.take(batch)))
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(db, snapshot)
    bodies = [orjson.dumps(workload.take(batch)) for _ in range(events // batch)]
    _Log.statements = []
    _Log.on = True
    started = time.process_time()
    for body in bodies:
        ingest(body)
    cpu = time.process_time() - started
    _Log.on = False
    engine.dispose()
    return cpu, _Log.statements


def _replay(snapshot: Path, work: Path, statements: list[Recorded]) -> float:
    """CPU seconds to send ``statements`` on a fresh copy of ``snapshot``."""
    db = work / "replay.db"
    for leftover in work.glob("replay.db*"):
        leftover.unlink()
    shutil.copyfile(snapshot, db)
    engine = create_store_engine(f"sqlite:///{db}")
    pooled = engine.raw_connection()
    raw = pooled.driver_connection
    assert isinstance(raw, sqlite3.Connection)
    raw.isolation_level = None  # the recorded BEGIN and COMMIT decide
    if raw.in_transaction:
        raw.rollback()
    started = time.process_time()
    for sql, params, many in statements:
        if sql == "COMMIT":  # as recorded: the driver's (nothing when no transaction is open)
            raw.commit()
            continue
        if sql == "ROLLBACK":
            raw.rollback()
            continue
        cursor = raw.cursor()
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)
            if cursor.description is not None:
                cursor.fetchall()
        cursor.close()
    cpu = time.process_time() - started
    pooled.close()
    engine.dispose()
    return cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest_sql_floor")
    parser.add_argument("--warm", type=int, default=2_000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--before",
        help="the src folder of the tree before issue 38 (12d6d8f): its ingest CPU an event, "
        "and this tree's, by bench.ingest_trees' child in each round",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ingest-sql-floor-") as tmp:
        work = Path(tmp)
        snapshot = work / "snapshot.db"
        cpu, recorded = _fill(work / "lineage.db", args.warm, args.events, args.batch, snapshot)
        kept = [r for r in recorded if not history_write(r[0])]
        history = len(recorded) - len(kept)
        all_cpu: list[float] = []
        kept_cpu: list[float] = []
        trees: dict[str, list[float]] = {"before": [], "this tree": []}
        for _ in range(args.rounds):  # alternating, so the machine's load falls on all alike
            all_cpu.append(_replay(snapshot, work, recorded))
            kept_cpu.append(_replay(snapshot, work, kept))
            if args.before:
                for name, src in (("before", args.before), ("this tree", str(ROOT / "src"))):
                    took = ingest_trees._run(src, args.events, args.batch, work, "tree")
                    trees[name].append(took)
    per = 1e6 / args.events
    all_us = statistics.median(all_cpu) * per
    kept_us = statistics.median(kept_cpu) * per
    pairs = sorted((a - k) * per for a, k in zip(all_cpu, kept_cpu, strict=True))
    print(
        f"{args.events:,} events in batches of {args.batch} after {args.warm:,}; "
        f"{len(recorded):,} statements, {history:,} of them writing history tables"
    )
    print("| CPU µs an event | median of the rounds |")
    print("|---|---:|")
    print(f"| the ingest (parse, derive, write), in process | {cpu * per:.0f} |")
    print(f"| its SQL replayed: all | {all_us:.0f} |")
    print(f"| its SQL replayed: without the history writes | {kept_us:.0f} |")
    floor = statistics.median(pairs)
    print(
        f"| the history writes' SQL (all less without, pair by pair: median, range) "
        f"| {floor:.0f} ({pairs[0]:.0f} to {pairs[-1]:.0f}) |"
    )
    if args.before:
        before = statistics.median(trees["before"]) * per
        this = statistics.median(trees["this tree"]) * per
        print(f"| the tree before issue 38: ingest (bench.ingest_trees' child) | {before:.0f} |")
        print(
            f"| this tree: ingest (the same child) | {this:.0f} ({this / before:.3f} of before) |"
        )
        print(
            f"\nThe history writes' SQL alone is {floor / before:.3f} of the ingest before "
            f"issue 38 (its budget: 0.10 for all of the issues' ingest work)."
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
