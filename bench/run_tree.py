"""Run trees in process: ``/runs/{run_id}/tree`` of a 200-run hierarchy on a large store.

Fills a SQLite store, in process through the real ingest path (parse,
validate, derive, the writer's group commit), with ``--events`` events of the
standard workload (``bench/workload.py``: about a third of its runs are
children of another run), then adds ``--trees`` hierarchies of 200 runs each
(an Airflow DAG run -> 9 tasks -> 3 Spark applications each -> Spark jobs,
START and COMPLETE per run, their events shuffled among each other so
children often arrive before their parents). Then it times the services, in
process without HTTP:

* the tree (:func:`feast_lineage.consumer.services.run_tree.tree_of_run`) of
  a random run of a random hierarchy;
* the baseline of the same run: one run's answer
  (:func:`feast_lineage.consumer.services.runs.run_detail`) of the same runs,
  which reads the run's events.

It prints p50/p95 (wall and CPU, ms) and the ratio of the tree's p95 to the
baseline's. ``--keep`` keeps the store under ``bench/data/``.

    .venv/bin/python -m bench.run_tree --events 300000 --trees 20 --keep
    .venv/bin/python -m bench.run_tree --events 300000 --reuse   # time it again
    .venv/bin/python -m bench.run_tree --store bench/data/standard-1000000/lineage.db

``--store`` takes a store filled elsewhere (a copy of the shared 1M-event
standard store, say): it is migrated to head, the hierarchies are added
unless it has them, and it is kept.
"""

from __future__ import annotations

import argparse
import random
import shutil
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

import orjson

from bench.workload import Workload, WorkloadConfig

DATA = Path(__file__).parent / "data"
PRODUCER = "https://github.com/apache/airflow/bench"


def _pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _iso(us: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(us // 1_000_000)) + (
        f".{(us // 1000) % 1000:03d}Z"
    )


def hierarchy(rng: random.Random, start_us: int, index: int) -> tuple[list[str], list[Any]]:
    """One 200-run tree: DAG -> 9 tasks -> 27 Spark applications -> 163 Spark jobs."""
    dag = ("airflow", f"bench_dag_{index % 50}")
    root_id = str(uuid.UUID(int=rng.getrandbits(128)))
    runs: list[tuple[str, tuple[str, str], tuple[str, tuple[str, str]] | None]] = [
        (root_id, dag, None)
    ]
    tasks = []
    for t in range(9):
        task = (str(uuid.UUID(int=rng.getrandbits(128))), ("airflow", f"{dag[1]}.task_{t}"))
        runs.append((task[0], task[1], (root_id, dag)))
        tasks.append(task)
    apps = []
    for t, task in enumerate(tasks):
        for a in range(3):
            app = (str(uuid.UUID(int=rng.getrandbits(128))), ("spark", f"app_{t}_{a}"))
            runs.append((app[0], app[1], task))
            apps.append(app)
    for j in range(200 - len(runs)):
        app = apps[j % len(apps)]
        runs.append((str(uuid.UUID(int=rng.getrandbits(128))), ("spark", f"{app[1][1]}.job"), app))
    events = []
    for i, (run_id, job, parent) in enumerate(runs):
        facets: dict[str, Any] = {}
        if parent is not None:
            facets["parent"] = {
                "_producer": PRODUCER,
                "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/ParentRunFacet.json",
                "run": {"runId": parent[0]},
                "job": {"namespace": parent[1][0], "name": parent[1][1]},
                "root": {
                    "run": {"runId": root_id},
                    "job": {"namespace": dag[0], "name": dag[1]},
                },
            }
        for kind, offset in (("START", i * 1000), ("COMPLETE", i * 1000 + 500_000)):
            events.append(
                {
                    "eventType": kind,
                    "eventTime": _iso(start_us + offset),
                    "producer": PRODUCER,
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                    "run": {"runId": run_id, "facets": facets},
                    "job": {"namespace": job[0], "name": job[1]},
                    "inputs": [],
                    "outputs": [],
                }
            )
    rng.shuffle(events)
    return [r[0] for r in runs], events


def _batches(events: Iterator[Any], size: int) -> Iterator[list[Any]]:
    while batch := list(islice(events, size)):
        yield batch


def _writer(db: Path) -> tuple[Any, Callable[[list[Any]], None]]:
    """The store's engine (migrated) and a function writing a batch through the real intake."""
    from feast_lineage.consumer.intake.body import parse_events
    from feast_lineage.consumer.intake.facet_memo import FacetMemo
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.intake.problems import InvalidEvent
    from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema

    engine = create_store_engine(f"sqlite:///{db}")
    upgrade_schema(engine)
    pipeline = IngestPipeline(engine)
    memo = FacetMemo()

    def write(batch: list[Any]) -> None:
        parsed = parse_events(
            orjson.dumps(batch), time.time_ns() // 1000, max_events=100_000, memo=memo
        )
        rows = [r for r in parsed.results if not isinstance(r, InvalidEvent)]
        assert len(rows) == len(batch), [r for r in parsed.results if isinstance(r, InvalidEvent)]
        pipeline.write_now(rows)

    return engine, write


def _tree_events(trees: int, seed: int) -> list[Any]:
    rng = random.Random(seed)
    tree_events: list[Any] = []
    base_us = 1_767_225_600_000_000  # 2026-01-01
    for t in range(trees):
        _ids, evs = hierarchy(rng, base_us + t * 3_600_000_000, t)
        tree_events += evs
    return tree_events


def fill(db: Path, events: int, trees: int, seed: int) -> None:
    engine, write = _writer(db)
    started = time.perf_counter()
    workload = Workload(WorkloadConfig(seed=seed))
    tree_events = _tree_events(trees, seed)
    # The hierarchies' events go in among the workload's, spread over the fill.
    every = max(1, events // max(1, len(tree_events)))
    mixed = iter(tree_events)
    written = 0
    for batch in _batches(islice(workload.events(), events), 500):
        extra = list(islice(mixed, len(batch) // every + 1))
        write(batch + extra)
        written += len(batch) + len(extra)
    rest = list(mixed)
    if rest:
        write(rest)
        written += len(rest)
    print(f"filled {written:,} events in {time.perf_counter() - started:.0f} s")
    engine.dispose()


def add_trees(db: Path, trees: int, seed: int) -> None:
    """Add the hierarchies to a store filled elsewhere (migrated first), unless it has them."""
    from sqlalchemy import func, select

    from feast_lineage.consumer.store.schema import tables as t

    started = time.perf_counter()
    engine, write = _writer(db)
    print(f"store opened (migrated to head) in {time.perf_counter() - started:.0f} s")
    with engine.connect() as conn:
        have = conn.execute(
            select(func.count()).select_from(t.jobs).where(t.jobs.c.name.like("bench_dag_%"))
        ).scalar_one()
    if not have:
        for batch in _batches(iter(_tree_events(trees, seed)), 500):
            write(batch)
        print(f"added {trees} hierarchies of 200 runs in {time.perf_counter() - started:.0f} s")
    engine.dispose()


def _time(calls: list[Callable[[], Any]]) -> tuple[list[float], list[float]]:
    cpu: list[float] = []
    wall: list[float] = []
    for call in calls:
        c0, w0 = time.process_time(), time.perf_counter()
        call()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return cpu, wall


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run_tree", description=__doc__)
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--trees", type=int, default=20)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument(
        "--reuse", action="store_true", help="time the store a run with --keep left, no fill"
    )
    parser.add_argument(
        "--store",
        type=Path,
        help="a SQLite store filled elsewhere (a copy: it is migrated and the trees added to it)",
    )
    args = parser.parse_args(argv)

    from sqlalchemy import func, select

    from feast_lineage.consumer.access.scope import Scope
    from feast_lineage.consumer.services.reader import StoreReader
    from feast_lineage.consumer.services.run_tree import tree_of_run
    from feast_lineage.consumer.services.runs import run_detail
    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.read.positions import PositionCache
    from feast_lineage.consumer.store.schema import tables as t

    folder = DATA / f"run-tree-{args.events}"
    db = folder / "lineage.db"
    if args.store is not None:
        db = args.store
        add_trees(db, args.trees, args.seed)
    elif not args.reuse:
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        fill(db, args.events, args.trees, args.seed)
    engine = create_store_engine(f"sqlite:///{db}")
    r, j = t.runs.c, t.jobs.c
    with engine.connect() as conn:
        roots = conn.execute(
            select(r.run_id)
            .join(t.jobs, j.id == r.job_id)
            .where(j.name.like("bench_dag_%"), r.parent_run_id.is_(None))
        ).scalars()
        hierarchies = [
            [root, *conn.execute(select(r.run_id).where(r.root_run_id == root)).scalars()]
            for root in roots
        ]
    with engine.connect() as conn:
        runs = conn.execute(select(func.count()).select_from(t.runs)).scalar_one()
        events = conn.execute(select(func.count()).select_from(t.events)).scalar_one()
    print(f"store: {events:,} events, {runs:,} runs, {db.stat().st_size / 1e6:,.0f} MB")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(args.seed)
    targets = [rng.choice(rng.choice(hierarchies)) for _ in range(args.requests)]
    sizes = {len(tree_of_run(read, r).runs) for r in targets[:5]}
    print(f"tree sizes (first 5 asked): {sorted(sizes)}")
    # Warm up both, then interleave rounds so both see the same machine.
    for r in targets[:10]:
        tree_of_run(read, r)
        run_detail(read, r)
    tree_cpu: list[float] = []
    tree_wall: list[float] = []
    base_cpu: list[float] = []
    base_wall: list[float] = []
    for start in range(0, len(targets), 20):
        chunk = targets[start : start + 20]
        c, w = _time([partial(tree_of_run, read, r) for r in chunk])
        tree_cpu += c
        tree_wall += w
        c, w = _time([partial(run_detail, read, r) for r in chunk])
        base_cpu += c
        base_wall += w
    print("| answer | p50 wall ms | p95 wall ms | p95 CPU ms |")
    print("|---|---:|---:|---:|")
    for name, cpu, wall in (
        ("run tree (200 runs)", tree_cpu, tree_wall),
        ("one run (baseline)", base_cpu, base_wall),
    ):
        print(
            f"| {name} | {_pct(wall, 0.5):.1f} | {_pct(wall, 0.95):.1f} | {_pct(cpu, 0.95):.1f} |"
        )
    print(f"tree p95 / baseline p95 (wall): {_pct(tree_wall, 0.95) / _pct(base_wall, 0.95):.2f}")
    engine.dispose()
    if not args.keep and args.store is None:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
