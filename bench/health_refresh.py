"""The first ``/health`` after an ingest: the kept assessment brought up to date against a
whole read, in process, CPU time (docs/performance.md, Lineage health).

On a copy of a store (it is written to), each round ingests through the real intake and
writer in process (``parse_events`` and ``IngestPipeline.write_now``, as ``bench.query``'s
fill does) either one small run event of a probe job or a batch of 100 events of the
standard workload (:mod:`bench.workload`), then answers ``/health`` (50 problems) twice,
in alternating order: with the process's kept cache (refreshed from the events since) and
with a new cache (everything read again, what each first read after an ingest paid before).
Then a graph page of 500 with states and without (an empty assessment), in turns. Each
answer's CPU time (``time.process_time``) and wall time; the ingest's CPU time per event.

    .venv/bin/python -m bench.health_refresh --store bench/data/<copy>/data/lineage.db
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def _probe(round_no: int) -> bytes:
    now = datetime.now(tz=UTC).isoformat().replace("+00:00", "Z")
    event = {
        "eventType": "COMPLETE",
        "eventTime": now,
        "producer": "https://example.com/bench-health",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "bench-health-probe", "name": f"probe-{round_no % 5}"},
        "inputs": [],
        "outputs": [{"namespace": "bench-health-probe", "name": f"probe-out-{round_no % 5}"}],
    }
    return json.dumps([event]).encode()


def run(db: Path, rounds: int, seed: int) -> dict[str, list[tuple[float, float]]]:
    import orjson

    from bench.workload import Workload, config_for
    from feast_lineage.consumer.access.scope import Scope
    from feast_lineage.consumer.intake.body import parse_events
    from feast_lineage.consumer.intake.facet_memo import FacetMemo
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.services import graph as gs
    from feast_lineage.consumer.services.health import health_page
    from feast_lineage.consumer.services.health_cache import HealthCache
    from feast_lineage.consumer.services.health_states import Assessment
    from feast_lineage.consumer.services.reader import StoreReader
    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.read import health as h
    from feast_lineage.consumer.store.read.positions import PositionCache
    from feast_lineage.event_time import now_us
    from feast_lineage.server import tune_gc

    rng = random.Random(seed)
    engine = create_store_engine(f"sqlite:///{db}")
    pipeline, memo = IngestPipeline(engine), FacetMemo()
    workload = Workload(config_for("history", seed=seed))  # not the fill's seed: new events

    def reader(cache: HealthCache) -> StoreReader:
        return StoreReader(
            engine=engine,
            scope=Scope.everything(),
            namespace_mapping={},
            positions=PositionCache(),
            health_cache=cache,
        )

    kept = reader(HealthCache())
    out: dict[str, list[tuple[float, float]]] = {}

    def timed(name: str, f: Callable[[], object]) -> None:
        c0, w0 = time.process_time(), time.perf_counter()
        f()
        out.setdefault(name, []).append((time.process_time() - c0, time.perf_counter() - w0))

    def ingest(body: bytes, name: str, events: int) -> None:
        c0 = time.process_time()
        parsed = parse_events(body, now_us(), max_events=10_000, memo=memo)
        pipeline.write_now([r for r in parsed.results if not isinstance(r, Exception)])
        out.setdefault(name, []).append(((time.process_time() - c0) / events, 0.0))

    def page() -> object:
        return health_page(kept, namespace=None, kind=None, limit=50, offset=0)

    def afresh() -> object:
        return health_page(reader(HealthCache()), namespace=None, kind=None, limit=50, offset=0)

    page()
    tune_gc()
    gc.collect()
    real = gs.assess  # type: ignore[attr-defined]

    def empty(conn: object, rules: object, now: int, cache: object = None) -> Assessment:
        return Assessment(now)

    with engine.connect() as conn:
        total = len(h.every_node(conn))
    for round_no in range(rounds):
        if round_no % 2:
            ingest(orjson.dumps(workload.take(100)), "ingest CPU per event (batch of 100)", 100)
            kind = "100 workload events"
        else:
            ingest(_probe(round_no), "ingest CPU per event (one probe)", 1)
            kind = "one probe event"
        arms = [("kept, refreshed", page), ("read whole", afresh)]
        # whichever answers first after the ingest pays the cold pages: each goes first in turn
        first, second = arms if round_no % 4 < 2 else arms[::-1]
        for name, answer in (first, second):
            timed(f"/health after {kind}: {name}", answer)
        timed("/health, nothing new (kept)", page)
        offset = rng.randrange(0, max(1, total - 500))
        gs.graph_page(kept, namespace=None, limit=500, offset=offset)  # warm page

        def graph(at: int = offset) -> object:
            return gs.graph_page(kept, namespace=None, limit=500, offset=at)

        for states in (True, False) if round_no % 2 else (False, True):
            setattr(gs, "assess", real if states else empty)  # noqa: B010
            try:
                timed("graph page 500, " + ("with" if states else "without") + " states", graph)
            finally:
                gs.assess = real  # type: ignore[attr-defined]
    engine.dispose()
    return out


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def report(out: dict[str, list[tuple[float, float]]], db: Path, rounds: int) -> str:
    from bench.ingest import machine_details

    lines = [
        f"# First /health after an ingest, in process, {datetime.now(tz=UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"Store: {db} ({db.stat().st_size / 1e9:.1f} GB); {rounds} rounds.",
        f"Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        "",
        *[f"- {k}: {v}" for k, v in machine_details()],
        "",
        "| measured | CPU p50 ms | CPU p95 ms | wall p50 ms | wall p95 ms | n |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, values in out.items():
        cpu, wall = [c for c, _ in values], [w for _, w in values]
        lines.append(
            f"| {name} | {statistics.median(cpu) * 1000:.2f} | {_p(cpu, 0.95):.2f} | "
            f"{statistics.median(wall) * 1000:.1f} | {_p(wall, 0.95):.1f} | {len(values)} |"
        )
    with_s = out["graph page 500, with states"]
    without = out["graph page 500, without states"]
    cpu_ratio = statistics.median([c for c, _ in with_s]) / statistics.median(
        [c for c, _ in without]
    )
    wall_ratio = statistics.median([w for _, w in with_s]) / statistics.median(
        [w for _, w in without]
    )
    lines += [
        "",
        f"Graph page with states / without, p50: CPU {cpu_ratio:.3f}, wall {wall_ratio:.3f}",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    text = report(run(args.store, args.rounds, args.seed), args.store, args.rounds)
    out = BENCH_DIR / "results" / f"health-refresh-{datetime.now(tz=UTC):%Y%m%d-%H%M%S}.md"
    out.write_text(text)
    print(text)
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
