"""The Jobs and Datasets lists and a node's details as of an instant, beside now.

In one process, on a SQLite store (the history workload's, a copy): per
round, a page of 100 jobs (default order, and sorted by ``-latest_started``),
a page of 100 datasets and a node's details (the subgraph of depth 0 the
UI opens, a random job and a random dataset), each asked now and ``as_of``
a random instant in the store's span, interleaved, beside a bare
``SELECT 1``. CPU time of the service call (``time.process_time``: the
machine is shared, wall time is noise) and wall time, p50 and p95 in ms;
the ratio of each ``as_of`` answer's p50 to its now answer's, same run.

Not part of the test suite; no timed assertions. Run from the repository
root::

    .venv/bin/python -m bench.catalog_as_of --store bench/data/query-history-1000000/data/lineage.db
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select, text

from bench.stored import event_span
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services.catalog import dataset_page, job_page
from feast_lineage.consumer.services.graph import subgraph
from feast_lineage.consumer.services.graph_history import subgraph_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.schema import tables as t


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _timed(call: Callable[..., object], *args: object, **kwargs: object) -> tuple[float, float]:
    """(CPU ms, wall ms) of ``call``; a 404 (not there then) is timed too."""
    cpu, wall = time.process_time(), time.perf_counter()
    with contextlib.suppress(NotFound):
        call(*args, **kwargs)
    return (time.process_time() - cpu) * 1000, (time.perf_counter() - wall) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.catalog_as_of")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(args.seed)
    with engine.connect() as conn:
        first, last, events = event_span(conn)
        jobs = [(r.namespace, r.name) for r in conn.execute(select(t.jobs))]
        datasets = [(r.namespace, r.name) for r in conn.execute(select(t.datasets))]
    span = last - first
    results: dict[str, list[tuple[float, float]]] = {}

    def add(name: str, timing: tuple[float, float]) -> None:
        results.setdefault(name, []).append(timing)

    for n in range(args.rounds):
        instant = Instant(first + rng.randrange(span))
        offset = rng.randrange(0, max(1, len(jobs) - 100))
        with engine.connect() as conn:
            add("SELECT 1", _timed(conn.execute, text("SELECT 1")))
        pages: list[tuple[str, Callable[..., object], Sort]] = [
            ("jobs page 100", job_page, Sort("namespace")),
            ("jobs page 100 by -latest_started", job_page, Sort("latest_started", True)),
            ("datasets page 100", dataset_page, Sort("namespace")),
        ]
        for name, call, sort in pages:
            asked = {"namespace": None, "search": None, "limit": 100, "sort": sort}
            asked["offset"] = 0 if "latest" in name else offset % 1000
            first_now = n % 2 == 0  # interleaved: now first in even rounds, as_of in odd
            order = ("now", "as_of") if first_now else ("as_of", "now")
            for which in order:
                at = {"at": instant} if which == "as_of" else {}
                add(f"{name}, {which}", _timed(call, read, **asked, **at))
        for kind, pool in (("job", jobs), ("dataset", datasets)):
            ns, node = rng.choice(pool)
            node_args: dict[str, object] = {"kind": kind, "namespace": ns, "name": node}
            node_args |= {"depth": 0, "direction": "both", "limit": 1}
            add(f"{kind} details, now", _timed(subgraph, read, **node_args))
            add(f"{kind} details, as_of", _timed(subgraph_at, read, **node_args, at=instant))
    load = os.getloadavg()
    print(f"store: {args.store} ({events:,} events, {len(jobs):,} jobs, span {span / 3.6e9:.1f} h)")
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("| answer | n | CPU p50 ms | CPU p95 ms | wall p50 ms | wall p95 ms | CPU p50 / now |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, values in results.items():
        cpu = [c for c, _ in values]
        wall = [w for _, w in values]
        base = results.get(name.replace("as_of", "now"))
        ratio = (
            _pct(cpu, 0.5) / _pct([c for c, _ in base], 0.5) if base and "as_of" in name else None
        )
        print(
            f"| {name} | {len(values)} | {_pct(cpu, 0.5):.2f} | {_pct(cpu, 0.95):.2f} "
            f"| {_pct(wall, 0.5):.2f} | {_pct(wall, 0.95):.2f} | "
            + (f"{ratio:.2f}" if ratio is not None else "")
            + " |"
        )
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
