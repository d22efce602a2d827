"""Dataset versions: what they cost in store bytes and ingest time, and what a page costs.

In-process, on SQLite files under ``bench/data/`` (deleted at the end), with
the standard workload (:mod:`bench.workload`):

* **bytes per event**: a store filled with ``--events`` events, vacuumed,
  against the same store with its version and state rows deleted and
  vacuumed again (everything else is the same rows): the ratio is what
  versions add;
* **ingest**: ``--rounds`` interleaved rounds, each deriving and writing
  ``--ingest-events`` events (batches of 100, through the real
  ``parse_events`` and the writer's ``write_now``) into a fresh store with
  version rows and into one without (``version_rows`` replaced by a
  function that returns none): the ratio of the medians;
* **versions page**: ``GET .../versions`` of the dataset with the most
  history rows and of the one with the most writes (through the service,
  as a route calls it), p50 and p95 of ``--reads``, in wall time and in
  CPU time of the reading thread (what a loaded machine disturbs less).

Ingest rounds are timed in CPU seconds of the process (SQLite runs in it),
which a shared machine disturbs far less than wall time. ``--store PATH``
measures only the versions page, on a copy of an existing store (migrated
to the head revision first: the migration's time is reported).

    .venv/bin/python -m bench.dataset_versions --events 50000
    .venv/bin/python -m bench.dataset_versions --store bench/data/standard-1000000/lineage.db
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any
from unittest.mock import patch

import orjson
from sqlalchemy import Engine, func, select, union_all

from bench.workload import Workload
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.intake import derive
from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.services.dataset_versions import dataset_version_page
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.version_pages import VersionWindow
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write.dataset_versions import VersionRows

DATA = Path(__file__).parent / "data"


def _fill(path: Path, batches: list[bytes]) -> float:
    """Write ``batches`` into a new store at ``path``; the CPU seconds it took.

    CPU time of the process, not wall time: on a shared machine the wall
    time of a round depends on what else runs, its CPU time much less.
    """
    engine = create_store_engine(f"sqlite:///{path}")
    upgrade_schema(engine)
    pipeline = IngestPipeline(engine)
    memo = FacetMemo()
    started = time.process_time()
    for body in batches:
        parsed = parse_events(body, 0, max_events=100_000, memo=memo)
        pipeline.write_now(list(parsed.results))  # type: ignore[arg-type]
    took = time.process_time() - started
    engine.dispose()
    return took


def _vacuumed_size(path: Path) -> int:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path.stat().st_size


def _without_versions(run: Callable[[], float]) -> float:
    """``run()`` with ingest deriving no version rows (the store as it was before them)."""

    def none(*_args: Any, **_kwargs: Any) -> VersionRows:
        return VersionRows()

    with patch.object(derive, "version_rows", none):
        return run()


def _busiest(engine: Engine) -> dict[str, tuple[str, str, int]]:
    """The dataset with the most history rows, and the one with the most writes."""
    v, st, d = t.dataset_versions.c, t.dataset_states.c, t.datasets.c
    out: dict[str, tuple[str, str, int]] = {}
    with engine.connect() as conn:
        rows = union_all(select(v.dataset_id), select(st.dataset_id)).subquery()
        queries = {
            "most_rows": select(rows.c.dataset_id, func.count()).group_by(rows.c.dataset_id),
            "most_writes": select(v.dataset_id, func.count())
            .where(v.writes == 1)
            .group_by(v.dataset_id),
        }
        for label, query in queries.items():
            found = conn.execute(query.order_by(func.count().desc()).limit(1)).first()
            if found is None:
                continue
            ns, name = conn.execute(select(d.namespace, d.name).where(d.id == found[0])).one()
            out[label] = (ns, name, int(found[1]))
    return out


def _pages(engine: Engine, reads: int) -> dict[str, Any]:
    """p50 and p95 of the first page of the busiest datasets' versions, through the service."""
    reader = StoreReader(engine, Scope.everything(), {}, PositionCache())
    out: dict[str, Any] = {}
    for label, (ns, name, rows) in _busiest(engine).items():
        times, cpu = [], []
        for _ in range(reads):
            started, started_cpu = time.perf_counter(), time.thread_time()
            page = dataset_version_page(
                reader, namespace=ns, name=name, window=VersionWindow(limit=50)
            )
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.thread_time() - started_cpu) * 1000)
        times.sort()
        cpu.sort()
        out[label] = {
            "dataset": f"{ns}/{name}",
            "rows": rows,
            "versions_total": page.total,
            "page_p50_ms": round(times[len(times) // 2], 2),
            "page_p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
            "page_cpu_p50_ms": round(cpu[len(cpu) // 2], 2),
            "page_cpu_p95_ms": round(cpu[int(len(cpu) * 0.95) - 1], 2),
        }
    return out


def _history_rows(engine: Engine) -> int:
    with engine.connect() as conn:
        return sum(
            conn.execute(select(func.count()).select_from(table)).scalar_one()
            for table in (t.dataset_versions, t.dataset_states)
        )


def measure_store(path: Path, reads: int) -> dict[str, Any]:
    """The versions page on an existing store (migrated to the head revision first)."""
    engine = create_store_engine(f"sqlite:///{path}")
    started = time.perf_counter()
    upgrade_schema(engine)
    migrated_s = time.perf_counter() - started
    report = {
        "store": str(path),
        "migration_seconds": round(migrated_s, 1),
        "history_rows": _history_rows(engine),
        "pages": _pages(engine, reads),
    }
    engine.dispose()
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--ingest-events", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument(
        "--store",
        type=Path,
        help="measure only the versions page, on this SQLite store (a copy: it is migrated)",
    )
    args = parser.parse_args(argv)
    if args.store is not None:
        print(
            orjson.dumps(measure_store(args.store, args.reads), option=orjson.OPT_INDENT_2).decode()
        )
        return
    work = DATA / f"dataset-versions-{int(time.time())}"
    work.mkdir(parents=True)
    try:
        w = Workload()
        batches = w.take_batches(args.events)
        store = work / "store.db"
        fill_s = _fill(store, batches)
        engine = create_store_engine(f"sqlite:///{store}")
        rows = _history_rows(engine)
        pages = _pages(engine, args.reads)
        engine.dispose()
        with_bytes = _vacuumed_size(store)
        engine = create_store_engine(f"sqlite:///{store}")
        with engine.begin() as conn:
            conn.execute(t.dataset_versions.delete())
            conn.execute(t.dataset_states.delete())
        engine.dispose()
        without_bytes = _vacuumed_size(store)

        ingest = Workload().take_batches(args.ingest_events)
        timed: dict[str, list[float]] = {"with": [], "without": []}
        for i in range(args.rounds):
            a, b = work / f"with-{i}.db", work / f"without-{i}.db"
            timed["with"].append(_fill(a, ingest))
            timed["without"].append(_without_versions(partial(_fill, b, ingest)))
        n = args.events
        report = {
            "events": n,
            "fill_seconds": round(fill_s, 1),
            "history_rows": rows,
            "history_rows_per_event": round(rows / n, 2),
            "bytes_per_event_with": round(with_bytes / n),
            "bytes_per_event_without": round(without_bytes / n),
            "bytes_ratio": round(with_bytes / without_bytes, 3),
            "ingest_cpu_seconds_with": [round(s, 2) for s in timed["with"]],
            "ingest_cpu_seconds_without": [round(s, 2) for s in timed["without"]],
            "ingest_ratio": round(
                statistics.median(timed["with"]) / statistics.median(timed["without"]), 3
            ),
            "pages": pages,
        }
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
