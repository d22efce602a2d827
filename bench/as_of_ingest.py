"""What issue 39's history costs ingest: this branch against the code before it, same workload.

Each round fills two fresh SQLite stores with the same events of the
standard workload (:mod:`bench.workload`), 100 events a batch, through the
real intake and writer in process (``parse_events`` and
``IngestPipeline.write_now``, as ``bench.query``'s fill does): one child
process runs this tree's ``src``, the other a copy of the code before it
(``--before``: a ``src`` directory, e.g. from ``git archive main``), put
first on ``PYTHONPATH``. The two alternate which goes first, round after
round, so load on the machine falls on both alike; the answer is the ratio
of their times (schema creation excluded). ``--explicit``: every event of
a job that lists outputs also carries a ``lineage`` job facet stating them
(each output fed by the event's inputs), so each such event is an explicit
lineage statement (migration 0021's rows); the standard workload has none.

Not part of the test suite; no timed assertions::

    git archive main src | tar -x -C /tmp/before
    .venv/bin/python -m bench.as_of_ingest --before /tmp/before/src --events 20000 --rounds 3
    .venv/bin/python -m bench.as_of_ingest --before /tmp/before/src --explicit
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def with_explicit(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with a ``lineage`` job facet stating its outputs fed by its inputs."""
    outputs, inputs = event.get("outputs") or [], event.get("inputs") or []
    job = event.get("job")
    if not outputs or not isinstance(job, dict):
        return event
    refs = [{"namespace": d["namespace"], "name": d["name"], "type": "DATASET"} for d in inputs]
    entries = [
        {"namespace": d["namespace"], "name": d["name"], "type": "DATASET", "inputs": refs}
        for d in outputs
    ]
    facet = {
        "_producer": "https://feast-lineage.example/bench",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/LineageFacet.json#/$defs/LineageJobFacet",
        "entries": entries,
    }
    return {**event, "job": {**job, "facets": {**(job.get("facets") or {}), "lineage": facet}}}


def child(events: int, db: Path, explicit: bool = False) -> tuple[float, float, int]:
    import orjson

    from bench.workload import Workload, WorkloadConfig
    from feast_lineage.consumer.intake.body import parse_events
    from feast_lineage.consumer.intake.facet_memo import FacetMemo
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
    from feast_lineage.event_time import now_us

    engine = create_store_engine(f"sqlite:///{db}")
    upgrade_schema(engine)
    pipeline, memo = IngestPipeline(engine), FacetMemo()
    workload = Workload(WorkloadConfig())
    batches = [workload.take(100) for _ in range(events // 100)]
    if explicit:
        batches = [[with_explicit(dict(e)) for e in batch] for batch in batches]
    bodies = [orjson.dumps(batch) for batch in batches]
    with engine.connect() as conn:
        empty = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
    started, cpu = time.perf_counter(), time.process_time()
    for body in bodies:
        parsed = parse_events(body, now_us(), max_events=10_000, memo=memo)
        pipeline.write_now([r for r in parsed.results if not isinstance(r, Exception)])
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    with engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
        size = conn.exec_driver_sql("PRAGMA page_size").scalar_one()
    engine.dispose()
    return took, cpu, (int(pages) - int(empty)) * int(size)


def _run(src: Path, events: int, work: Path, name: str, explicit: bool) -> tuple[float, float, int]:
    db = work / f"{name}.db"
    for path in work.glob(f"{name}.db*"):
        path.unlink()
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.as_of_ingest",
            "--child",
            str(db),
            "--events",
            str(events),
            *(["--explicit"] if explicit else []),
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    wall, cpu, size = out.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu), int(size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.as_of_ingest")
    parser.add_argument("--before", type=Path)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--explicit", action="store_true", help="events state explicit lineage")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(*child(args.events, args.child, args.explicit))
        return 0
    sides = {"before": args.before, "after": ROOT / "src"}
    times: dict[str, list[float]] = {"before": [], "after": []}
    cpus: dict[str, list[float]] = {"before": [], "after": []}
    sizes: dict[str, list[int]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="as-of-ingest-") as tmp:
        for n in range(args.rounds):
            order = ("before", "after") if n % 2 == 0 else ("after", "before")
            for side in order:
                wall, cpu, size = _run(sides[side], args.events, Path(tmp), side, args.explicit)
                times[side].append(wall)
                cpus[side].append(cpu)
                sizes[side].append(size)
            print(f"round {n + 1}: " + ", ".join(f"{s} {times[s][-1]:.1f} s" for s in order))
    ratios = [a / b for a, b in zip(times["after"], times["before"], strict=True)]
    cpu_ratios = [a / b for a, b in zip(cpus["after"], cpus["before"], strict=True)]
    for side in sides:
        per_event = statistics.median(cpus[side]) / args.events * 1e6
        stored = statistics.median(sizes[side]) / args.events
        print(f"{side}: CPU {per_event:.0f} us/event, {stored:.0f} bytes/event (SQLite pages)")
    print(f"CPU after / before: median {statistics.median(cpu_ratios):.3f}, rounds {cpu_ratios}")
    load = os.getloadavg()
    kind = "explicit lineage" if args.explicit else "standard"
    print(
        f"{kind} workload, {args.events:,} events a round, {args.rounds} rounds, "
        f"load {load[0]:.2f} {load[1]:.2f}"
    )
    for side, values in times.items():
        rate = args.events / statistics.median(values)
        print(f"{side}: median {statistics.median(values):.1f} s ({rate:.0f} events/s)")
    print(f"after / before: median {statistics.median(ratios):.3f}, rounds {ratios}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
