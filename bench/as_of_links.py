"""The depth-3 subgraph ``as_of``: this tree (symlinks followed then) against the code before it.

On a copy of a history store (``bench/data/query-history-1000000``, the
store migrated by this tree first), child processes alternate: one runs
this tree's ``src``, the other a copy of the code before it (``--before``:
a ``src`` directory, e.g. from ``git archive main``), first on
``PYTHONPATH``; the before side does not upgrade the schema (the table it
does not know is left alone). Each asks the same random jobs and datasets
(a fixed seed) at the same random instants: the subgraph at depth 3, both
directions, ``as_of`` (the current subgraph is not changed by this tree,
and at depth 3 on this store takes seconds), beside a bare ``SELECT 1``; per answer the
wall time (p50, p95) and this thread's CPU time. The answer is each side's
p95 and the ratio of the two sides' CPU, round by round.

Not part of the test suite; no timed assertions::

    git archive main src | tar -x -C /tmp/before
    .venv/bin/python -m bench.as_of_links --before /tmp/before/src \\
        --store bench/data/query-history-1000000/data/lineage.db --rounds 4
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def child(store: Path, requests: int, seed: int, upgrade: bool) -> dict[str, object]:
    from sqlalchemy import func, select, text

    from feast_lineage.consumer.access.scope import Scope
    from feast_lineage.consumer.errors import NotFound
    from feast_lineage.consumer.services.graph_history import subgraph_at
    from feast_lineage.consumer.services.reader import StoreReader
    from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
    from feast_lineage.consumer.store.read.as_of import Instant
    from feast_lineage.consumer.store.read.positions import PositionCache
    from feast_lineage.consumer.store.schema import tables as t

    engine = create_store_engine(f"sqlite:///{store}")
    if upgrade:
        upgrade_schema(engine)
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    rng = random.Random(seed)
    with engine.connect() as conn:
        e = t.events.c
        first, last = conn.execute(
            select(func.min(e.event_time_us), func.max(e.event_time_us))
        ).one()
        edges = t.lineage_edges.c
        pairs = conn.execute(
            select(edges.src_id, edges.dst_id).where(edges.edge_type == "input")
        ).all()
        jobs = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.jobs))}
        datasets = {r.id: (r.namespace, r.name) for r in conn.execute(select(t.datasets))}
    picks = rng.sample(pairs, min(requests, len(pairs)))
    wall: dict[str, list[float]] = {}
    cpu: dict[str, float] = {}

    def timed(label: str, call: object, /, *args: object, **kwargs: object) -> None:
        started, used = time.perf_counter(), time.thread_time()
        try:
            call(*args, **kwargs)  # type: ignore[operator]
        except NotFound:
            return
        wall.setdefault(label, []).append((time.perf_counter() - started) * 1000)
        cpu[label] = cpu.get(label, 0.0) + (time.thread_time() - used) * 1000

    for n, pick in enumerate(picks):
        kind, node = ("job", jobs[pick.dst_id]) if n % 2 else ("dataset", datasets[pick.src_id])
        asked = {"kind": kind, "namespace": node[0], "name": node[1], "depth": 3}
        asked |= {"direction": "both", "limit": 2000}
        instant = Instant(first + rng.randrange(last - first))
        with engine.connect() as conn:
            timed("SELECT 1", conn.execute, text("SELECT 1"))
        timed("subgraph depth 3, as_of", subgraph_at, read, **asked, at=instant)
    engine.dispose()
    return {
        name: {
            "n": len(values),
            "p50": _pct(values, 0.5),
            "p95": _pct(values, 0.95),
            "cpu_ms_each": cpu[name] / len(values),
        }
        for name, values in wall.items()
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.as_of_links")
    parser.add_argument("--before", type=Path)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--requests", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--child", choices=("before", "after"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        upgrade = args.child == "after"
        print(json.dumps(child(args.store, args.requests, args.seed, upgrade)))
        return 0
    sides = {"before": args.before, "after": ROOT / "src"}
    got: dict[str, list[dict[str, dict[str, float]]]] = {"before": [], "after": []}
    for n in range(args.rounds):
        order = ("before", "after") if n % 2 == 0 else ("after", "before")
        for side in order:
            env = {**os.environ, "PYTHONPATH": str(sides[side])}
            command = [sys.executable, "-m", "bench.as_of_links", "--child", side]
            command += ["--store", str(args.store), "--requests", str(args.requests)]
            command += ["--seed", str(args.seed + n)]
            out = subprocess.run(
                command, cwd=ROOT, env=env, check=True, capture_output=True, text=True
            )
            got[side].append(json.loads(out.stdout.strip().splitlines()[-1]))
            print(f"round {n + 1} {side}: {got[side][-1]}", flush=True)
    load = os.getloadavg()
    print(
        f"{args.requests} requests a round, {args.rounds} rounds, load {load[0]:.2f} {load[1]:.2f}"
    )
    print("| answer | side | p50 ms (median of rounds) | p95 ms (median) | CPU ms each |")
    print("|---|---|---:|---:|---:|")
    for name in got["after"][0]:
        for side in ("before", "after"):
            rounds = [r[name] for r in got[side] if name in r]
            p50 = statistics.median(r["p50"] for r in rounds)
            p95 = statistics.median(r["p95"] for r in rounds)
            each = statistics.median(r["cpu_ms_each"] for r in rounds)
            print(f"| {name} | {side} | {p50:.2f} | {p95:.2f} | {each:.2f} |")
    name = "subgraph depth 3, as_of"
    ratios = [
        a[name]["cpu_ms_each"] / b[name]["cpu_ms_each"]
        for a, b in zip(got["after"], got["before"], strict=True)
    ]
    print(f"as_of CPU after / before: median {statistics.median(ratios):.3f}, rounds {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
