"""Column lineage queries in process: the service's CPU and wall time, without HTTP.

On a store kept by ``bench.query --workload columns --keep`` (or
``--fill-only``), it times the column lineage service
(:func:`feast_lineage.consumer.services.columns.column_lineage`) for random
targets: one field at depth 5 (both directions) and every column of a wide
dataset (45 or more columns) at depth 3 (both directions), with a subgraph
walk of depth 3 around the same datasets as the baseline of the same run.
CPU time is the process's (``time.process_time``), so it holds when other
work shares the machine; wall time is reported beside it. ``--profile``
prints the top of a cProfile (CPU timer) of the wide answers.

    .venv/bin/python -m bench.column_queries bench/data/query-columns-100000/data/lineage.db
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.query import column_targets


def _pct(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


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
    parser = argparse.ArgumentParser(prog="python -m bench.column_queries", description=__doc__)
    parser.add_argument("db", type=Path, help="the SQLite file of a kept store")
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)

    from feast_lineage.consumer.access.scope import Scope
    from feast_lineage.consumer.services.columns import column_lineage
    from feast_lineage.consumer.services.graph import subgraph
    from feast_lineage.consumer.services.reader import StoreReader
    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.read.positions import PositionCache

    repo = args.db.resolve().parent.parent
    fields, wide, counts = column_targets(repo)
    engine = create_store_engine(f"sqlite:///{args.db}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(args.seed)
    one = [rng.choice(fields) for _ in range(args.requests)]
    whole = [rng.choice(wide) for _ in range(args.requests)]

    def col(ns: str, name: str, field: str | None, depth: int) -> Callable[[], Any]:
        return lambda: column_lineage(
            read,
            namespace=ns,
            name=name,
            field_name=field,
            direction="both",
            depth=depth,
            indirect=True,
            limit=2000,
        )

    def sub(ns: str, name: str) -> Callable[[], Any]:
        return lambda: subgraph(
            read, kind="dataset", namespace=ns, name=name, depth=3, direction="both", limit=2000
        )

    for ns, name, field in one[:5]:  # warm the caches (statements, pages)
        col(ns, name, field, 5)()
    rows = [
        ("subgraph depth 3 (baseline)", [sub(ns, n) for ns, n in whole]),
        ("column lineage, one field, depth 5", [col(ns, n, f, 5) for ns, n, f in one]),
        (
            "column lineage, all columns of a wide dataset, depth 3",
            [col(ns, n, None, 3) for ns, n in whole],
        ),
    ]
    edges = [len(col(ns, n, None, 3)()["edges"]) for ns, n in whole[:10]]
    print(f"store: {args.db}; " + ", ".join(f"{v:,} {k}" for k, v in counts.items()))
    print(f"edges per wide answer (median of 10): {statistics.median(edges):.0f}")
    print("| query | CPU p50 ms | CPU p95 ms | wall p50 ms | wall p95 ms | CPU p50 / baseline |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    base = 0.0
    for name, calls in rows:
        cpu, wall = _time(calls)
        base = base or _pct(cpu, 0.5)
        print(
            f"| {name} | {_pct(cpu, 0.5):.2f} | {_pct(cpu, 0.95):.2f} | "
            f"{_pct(wall, 0.5):.2f} | {_pct(wall, 0.95):.2f} | {_pct(cpu, 0.5) / base:.1f}x |"
        )
    if args.profile:
        profiler = cProfile.Profile(time.process_time)
        profiler.enable()
        for _ns, call in zip(whole, rows[2][1], strict=True):
            call()
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(40)
        print(out.getvalue())
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
