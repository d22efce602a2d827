"""Where a history answer's CPU goes, in process: the 500-node page ``as_of`` or a window subgraph.

On a SQLite store of the history workload (``bench.query --workload history
--fill-only``), ``--calls`` answers through the service layer (no HTTP):
``page`` asks the 500-node graph page ``as_of`` a random instant at a random
offset; ``window`` asks the subgraph depth 3 (both directions) of a random
node over the week before a random instant in the later three quarters of
the store's span. Each read and step under it is timed by a wrapper around
the function (the process's CPU clock, so the figures include their callees'),
and given per answer, largest first, with the answers' CPU mean and p95 and,
for windows, the five slowest answers' steps. Timers, not a profiler.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.answer_phases --store path/to/lineage.db --kind window --calls 80
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from pathlib import Path
from types import ModuleType

from bench.asks import page_at, subgraph_around
from bench.stored import event_span, node_names
from bench.timers import time_calls
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.services import graph_history, job_versions_then
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import catalog_as_of, dataset_facets_at
from feast_lineage.consumer.store.read import window as window_reads
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.read.window import Window

WEEK_US = 7 * 86_400 * 1_000_000
_TIMED: dict[str, tuple[tuple[ModuleType, tuple[str, ...]], ...]] = {
    "page": (
        (at_reads, ("count_nodes", "node_page", "count_edges", "edges_among")),
        (at_reads, ("dataset_versions_at", "symlinks_touching")),
        (job_versions_then, ("job_versions_at",)),
        (graph_history, ("_nodes", "_facets_then", "_versions", "_runs_then", "_columns_then")),
        (graph_history, ("_edges", "_symlinks")),
        (catalog_as_of, ("facets_at", "dataset_facets_then")),
        (dataset_facets_at, ("only_payloads",)),
    ),
    "window": (
        (window_reads, ("walk", "edges_among", "parent_edges_among", "explicit_among")),
        (graph_history, ("_nodes", "_edges", "_symlinks")),
    ),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answer_phases")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--kind", choices=sorted(_TIMED), default="page")
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    with engine.connect() as conn:
        first, last, events = event_span(conn)
        nodes = node_names(conn)
    spent: dict[str, float] = defaultdict(float)
    for module, names in _TIMED[args.kind]:
        for name in names:
            time_calls(spent, module, name, time.process_time)
    rng = random.Random(args.seed)

    def ask() -> int:
        instant = first + int((last - first) * (0.25 + 0.75 * rng.random()))
        if args.kind == "page":
            return page_at(read, rng, Instant(instant))
        return subgraph_around(read, rng.choice(nodes), Window(instant - WEEK_US, instant))

    for _ in range(3):  # warm the caches
        ask()
    spent.clear()
    answers: list[tuple[float, int, dict[str, float]]] = []
    for _ in range(args.calls):
        before = dict(spent)
        started = time.process_time()
        size = ask()
        steps = {k: v - before.get(k, 0.0) for k, v in spent.items()}
        answers.append((time.process_time() - started, size, steps))
    cpu = sorted(a[0] for a in answers)
    n = len(cpu)
    print(f"store: {args.store} ({events:,} events), {args.kind}, {n} answers")
    p95 = cpu[int(0.95 * (n - 1))]
    print(f"CPU ms an answer: mean {1000 * sum(cpu) / n:.1f}, p95 {1000 * p95:.1f}")
    print("| step | CPU ms an answer |")
    print("|---|---:|")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"| `{label}` | {1000 * seconds / n:.1f} |")
    if args.kind == "window":
        print("\nthe slowest answers (CPU ms, nodes, then the steps' ms):")
        for seconds, size, steps in sorted(answers, key=lambda a: a[0])[-5:]:
            parts = ", ".join(f"{k} {1000 * v:.1f}" for k, v in sorted(steps.items()))
            print(f"- {1000 * seconds:.0f} ms, {size} nodes: {parts}")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
