"""What exact dataset facets as of an instant cost: a node's details, and the walk, in process.

On a SQLite store at head (a history workload, e.g. the 1M store of
``python -m bench.query --workload history --sizes 1000000 --fill-only``):

* **node details**: ``--nodes`` times a random dataset at a random instant
  in the later nine tenths of the store's span, its answer alone
  (:func:`..services.graph_history.subgraph_at` with ``depth=0``, what the
  UI's details panel asks), CPU per answer and the facets it holds;
* **the walk**: the first ``--datasets`` datasets by id at the middle
  instant, :func:`feast_lineage.consumer.store.read.dataset_facets_at.dataset_facets_at`
  exact and not (``walk=False``: the facets stated last by then), CPU of
  each, and how many walked facets were still left out.

Run it once per tree to compare (``PYTHONPATH=<tree>/src``; a tree before
session 10 has no walk and prints the details only). CPU time
(``time.process_time``): the process is single-threaded, so other
processes' load moves it less than wall time. Not part of the test suite;
no timed assertions. Run from the repository root::

    .venv/bin/python -m bench.dataset_facets_at --store path/to/lineage.db --nodes 200
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from pathlib import Path

from sqlalchemy import Engine, text

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services.graph_history import subgraph_at
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.positions import PositionCache


def _ms(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    return f"p50 {statistics.median(ordered) * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--datasets", type=int, default=300)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    engine = create_store_engine(f"sqlite:///{args.store}")
    read = StoreReader(engine, Scope.everything(), {}, PositionCache())
    with engine.connect() as conn:
        lo, hi = conn.execute(
            text("SELECT min(event_time_us), max(event_time_us) FROM feast_lineage_events")
        ).one()
        named = conn.execute(text("SELECT id, namespace, name FROM feast_lineage_datasets")).all()
    rng = random.Random(args.seed)
    spent: list[float] = []
    facets: list[int] = []
    missing = 0
    for _ in range(args.nodes):
        at = Instant(rng.randrange(lo + (hi - lo) // 10, hi))
        _, namespace, name = named[rng.randrange(len(named))]
        start = time.process_time()
        try:
            answer = subgraph_at(
                read, kind="dataset", namespace=namespace, name=name, depth=0,
                direction="both", limit=10, at=at,
            )  # fmt: skip
            facets.append(len(answer["nodes"][0]["facets"]))
        except NotFound:  # not yet named then
            missing += 1
        spent.append(time.process_time() - start)
    print(
        f"node details: {_ms(spent)}; {missing} of {args.nodes} not named then; "
        f"facets a node {statistics.mean(facets or [0]):.2f}"
    )
    _walk(engine, [int(r[0]) for r in sorted(named)[: args.datasets]], Instant((lo + hi) // 2))
    return 0


def _walk(engine: Engine, ids: list[int], at: Instant) -> None:
    try:
        from feast_lineage.consumer.store.read.dataset_facets_at import dataset_facets_at
    except ImportError:  # a tree before session 10
        return
    with engine.connect() as conn:
        for walk in (False, True):
            start = time.process_time()
            found = dataset_facets_at(conn, ids, at, uris=True, walk=walk)
            spent = time.process_time() - start
            held = sum(len(f) for f in found.facets.values())
            print(
                f"{len(ids)} datasets, {'exact' if walk else 'stated by then'}: "
                f"{spent * 1e3:.0f} ms CPU, {held} facets, {len(found.uris)} URIs"
            )


if __name__ == "__main__":
    raise SystemExit(main())
