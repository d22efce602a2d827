"""The lineage diff between two instants: how fast, beside the two ``as_of`` answers it is made of.

In one process, on a SQLite store (a standard or history workload, at the
branch's head): the diff centred on random jobs and datasets that have
edges, depth 3 both ways, between two random instants of the store's span;
and the whole-graph diff of two instants a week apart (or a sixth of the
span, when it is shorter); p50 and p95 in ms of the service call, beside a
bare ``SELECT 1`` and the ``as_of`` subgraph of the same centre at the later
instant. The requests are interleaved, so load falls on all alike.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.lineage_diff --store path/to/lineage.db
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import func, select, text

from bench.stored import event_span
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services.graph_history import subgraph_at
from feast_lineage.consumer.services.lineage_diff import Centre, Moment, lineage_diff
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.schema import tables as t

WEEK_US = 7 * 24 * 3600 * 1_000_000


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _timed(call: Callable[..., object], *args: object, **kwargs: object) -> float | None:
    """Milliseconds ``call`` took; None when it answered 404."""
    started = time.perf_counter()
    try:
        call(*args, **kwargs)
    except NotFound:
        return None
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lineage_diff")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    upgrade_schema(engine)  # the store at this branch's head
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(args.seed)
    with engine.connect() as conn:
        first, last, events = event_span(conn)
        nodes = conn.execute(select(func.count()).select_from(t.jobs)).scalar_one()
        nodes += conn.execute(select(func.count()).select_from(t.datasets)).scalar_one()
        edges = t.lineage_edges.c
        pairs = conn.execute(
            select(edges.src_id, edges.dst_id).where(edges.edge_type == "input")
        ).all()
        jobs = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.jobs))}
        datasets = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.datasets))}
    picks = rng.sample(pairs, min(args.requests, len(pairs)))
    span = last - first
    apart = min(WEEK_US, span // 3)
    results: dict[str, list[float]] = {}

    def add(name: str, ms: float | None) -> None:
        if ms is not None:
            results.setdefault(name, []).append(ms)

    for n, pick in enumerate(picks):
        kind, node = ("job", jobs[pick.dst_id]) if n % 2 else ("dataset", datasets[pick.src_id])
        t1, t2 = sorted(first + rng.randrange(span) for _ in range(2))
        centre = Centre("job" if n % 2 else "dataset", node[0], node[1], 3, "both")
        with engine.connect() as conn:
            add("SELECT 1", _timed(conn.execute, text("SELECT 1")))
        asked = {"kind": kind, "namespace": node[0], "name": node[1], "depth": 3}
        asked |= {"direction": "both", "limit": 2000, "at": Instant(t2)}
        add("as_of subgraph depth 3 (one side)", _timed(subgraph_at, read, **asked))
        sides = {"start": Moment("from", time_us=t1), "end": Moment("to", time_us=t2)}
        add("diff depth 3", _timed(lineage_diff, read, **sides, centre=centre, now_us=last))
        if n % 4 == 0:
            end = first + apart + rng.randrange(span - apart)
            week = {"start": Moment("from", time_us=end - apart), "end": Moment("to", time_us=end)}
            add("diff whole graph", _timed(lineage_diff, read, **week, centre=None, now_us=last))
    load = os.getloadavg()
    print(f"store: {args.store} ({events:,} events, {nodes:,} nodes, span {span / 3.6e9:.1f} h)")
    print(f"whole-graph instants {apart / 3.6e9:.1f} h apart")
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print("| answer | n | p50 ms | p95 ms | mean ms |")
    print("|---|---:|---:|---:|---:|")
    for name, values in results.items():
        print(
            f"| {name} | {len(values)} | {_pct(values, 0.5):.2f} | {_pct(values, 0.95):.2f} "
            f"| {statistics.mean(values):.2f} |"
        )
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
