"""The graph at an instant and over a window: how fast, beside the current graph's answers.

In one process, on a SQLite store filled by ``python -m bench.query
--fill-only`` (the standard workload): the subgraph at depth 3 (both
directions) of random jobs and datasets that have edges, and the graph
page of 500 nodes, each asked now (the current graph), ``as_of`` a random
instant in the store's span, and over a window of a sixth of the span
ending at a random instant; p50 and p95 in ms of the service call (queries
and the answer built), beside a bare ``SELECT 1``. The requests of the
three kinds are interleaved, so load on the machine falls on all alike.

Not part of the test suite; no timed assertions. Run from the repository
root::

    .venv/bin/python -m bench.as_of --store bench/data/query-100000/data/lineage.db
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import select, text

from bench.stored import event_span
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services.graph import graph_page, subgraph
from feast_lineage.consumer.services.graph_history import graph_page_at, subgraph_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.window import Window
from feast_lineage.consumer.store.schema import tables as t


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def _timed(call: Callable[..., object], *args: object, **kwargs: object) -> float | None:
    """Milliseconds ``call`` took; None when it answered 404 (the node did not exist then)."""
    started = time.perf_counter()
    try:
        call(*args, **kwargs)
    except NotFound:
        return None
    return (time.perf_counter() - started) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.as_of")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    upgrade_schema(engine)
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(args.seed)
    with engine.connect() as conn:
        first, last, events = event_span(conn)
        edges = t.lineage_edges.c
        pairs = conn.execute(
            select(edges.src_id, edges.dst_id, edges.edge_type).where(edges.edge_type == "input")
        ).all()
        jobs = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.jobs))}
        datasets = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.datasets))}
    picks = rng.sample(pairs, min(args.requests, len(pairs)))
    span = last - first
    results: dict[str, list[float]] = {}

    def add(name: str, ms: float | None) -> None:
        if ms is not None:
            results.setdefault(name, []).append(ms)

    for n, pick in enumerate(picks):
        kind, node = ("job", jobs[pick.dst_id]) if n % 2 else ("dataset", datasets[pick.src_id])
        asked = {"kind": kind, "namespace": node[0], "name": node[1], "depth": 3}
        asked |= {"direction": "both", "limit": 2000}
        instant = Instant(first + rng.randrange(span))
        end = first + span // 6 + rng.randrange(span - span // 6)
        window = Window(end - span // 6, end)
        with engine.connect() as conn:
            add("SELECT 1", _timed(conn.execute, text("SELECT 1")))
        add("subgraph depth 3, now", _timed(subgraph, read, **asked))
        add("subgraph depth 3, as_of", _timed(subgraph_at, read, **asked, at=instant))
        add("subgraph depth 3, window", _timed(subgraph_at, read, **asked, at=window))
        if n % 4 == 0:
            page = {"namespace": None, "limit": 500, "offset": 0}
            add("graph page 500, now", _timed(graph_page, read, **page))
            add("graph page 500, as_of", _timed(graph_page_at, read, **page, at=instant))
            add("graph page 500, window", _timed(graph_page_at, read, **page, at=window))
    load = os.getloadavg()
    print(f"store: {args.store} ({events:,} events, span {span / 3.6e9:.1f} h)")
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
