"""Where a whole-graph diff's time goes: wall time per read and step, in process.

On a SQLite store (a history workload, at the branch's head), the
whole-graph diff (``/lineage/diff`` without a centre) of two instants a
week apart, ``--diffs`` times at random ends; each read and step under it
(the two outlines' nodes, versions, edges and symlinks, the full nodes,
``difference`` and ``job_changes``) timed by a wrapper around the function,
summed, and given per diff in ms, largest first, with the answer's totals.
Wrapped functions include the time of those they call (the outline holds
its reads). Timers, not a profiler: the figures add up to the diff's wall
time without a profiler's overhead on the Python parts.

Not part of the test suite; no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.diff_phases --store path/to/lineage.db --diffs 6
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict
from pathlib import Path
from types import ModuleType

from bench.stored import event_span
from bench.timers import time_calls
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.services import graph_outline, job_versions_then, lineage_diff
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import catalog_as_of
from feast_lineage.consumer.store.read.positions import PositionCache

WEEK_US = 7 * 24 * 3600 * 1_000_000
# (module, function names) timed; the outline's reads are looked up where it calls them.
_TIMED: tuple[tuple[ModuleType, tuple[str, ...]], ...] = (
    (lineage_diff, ("trimmed_sides", "difference", "job_changes", "schema_changes")),
    (graph_outline, ("outline", "_edge_ids", "_full_nodes", "_built_edges", "column_edges_among")),
    (at_reads, ("all_nodes", "dataset_versions_at", "edges_at", "symlinks_at")),
    (job_versions_then, ("job_versions_at",)),
    (catalog_as_of, ("dataset_facet_blobs_at",)),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.diff_phases")
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--diffs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    upgrade_schema(engine)
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    with engine.connect() as conn:
        first, last, events = event_span(conn)
    spent: dict[str, float] = defaultdict(float)
    for module, names in _TIMED:
        for name in names:
            time_calls(spent, module, name, time.perf_counter)
    rng = random.Random(args.seed)
    apart = min(WEEK_US, (last - first) // 3)
    total = 0.0
    totals: object = {}
    for _ in range(args.diffs):
        end = first + apart + rng.randrange(last - first - apart)
        start = lineage_diff.Moment("from", time_us=end - apart)
        stop = lineage_diff.Moment("to", time_us=end)
        started = time.perf_counter()
        answer = lineage_diff.lineage_diff(read, start=start, end=stop, centre=None, now_us=last)
        total += time.perf_counter() - started
        totals = answer["totals"]
    print(f"store: {args.store} ({events:,} events), instants {apart / 3.6e9:.1f} h apart")
    print(f"the last answer's totals: {totals}")
    print(f"| step | ms a diff (of {1000 * total / args.diffs:.0f}) |")
    print("|---|---:|")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"| `{label}` | {1000 * seconds / args.diffs:.1f} |")
    engine.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
