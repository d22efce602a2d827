"""Ingest CPU per event of several source trees, in process, interleaved.

Each round fills one fresh SQLite store per tree with the same events of the
standard workload (:mod:`bench.workload`), ``--batch`` events a write
transaction, through the real intake and writer (``parse_events`` and
``IngestPipeline.write_now``) with the server's GC settings, in a child
process whose ``PYTHONPATH`` puts that tree's ``src`` first. The figure is
the child's CPU time (``time.process_time``, schema creation and event
generation excluded) per event; the trees take turns going first, round
after round, so load on the machine falls on all alike, and each is given as
a ratio to the first tree's median of the same run. Each child also reports
its parse (and derive) and write CPU apart, the collector's CPU, the bytes
it wrote (``/proc/self/io``'s ``wchar``: the log and its checkpoints, which
do not depend on the machine's load) and the bytes the store holds once
vacuumed (measured after the CPU figure), and a tree may be given SQL to run on
its migrated store first (``+layout.sql``: another table layout tried
without writing its migration).

Not part of the test suite; no timed assertions::

    git -C /work/main worktree add /tmp/before 12d6d8f
    .venv/bin/python -m bench.ingest_trees before=/tmp/before/src branch=src --rounds 3
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


def child(events: int, batch: int, db: Path, setup: Path | None) -> float:
    import orjson

    from bench.workload import Workload, WorkloadConfig
    from feast_lineage.consumer.intake.body import parse_events
    from feast_lineage.consumer.intake.facet_memo import FacetMemo
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
    from feast_lineage.event_time import now_us
    from feast_lineage.server import tune_gc

    engine = create_store_engine(f"sqlite:///{db}")
    upgrade_schema(engine)
    if setup is not None:  # another table layout to try, without writing its migration
        raw = engine.raw_connection()
        try:
            raw.driver_connection.executescript(setup.read_text())  # type: ignore[union-attr]
        finally:
            raw.close()
    pipeline, memo = IngestPipeline(engine), FacetMemo()
    # The store's payload dictionary, in a tree that has one (as the server's ingest passes it).
    codec: dict[str, Any] = {"codec": pipeline.codec} if hasattr(pipeline, "codec") else {}
    workload = Workload(WorkloadConfig())
    bodies = [orjson.dumps(workload.take(batch)) for _ in range(events // batch)]
    tune_gc()
    gc_cpu = _gc_timer()
    parse = write = 0.0
    written = _written()
    for body in bodies:
        t0 = time.process_time()
        parsed = parse_events(body, now_us(), max_events=10_000, memo=memo, **codec)
        items = [r for r in parsed.results if not isinstance(r, Exception)]
        t1 = time.process_time()
        pipeline.write_now(items)
        t2 = time.process_time()
        parse, write = parse + t1 - t0, write + t2 - t1
    engine.dispose()
    written = _written() - written
    print(
        f"parse {parse / events * 1e6:.0f} write {write / events * 1e6:.0f} "
        f"gc {gc_cpu[0] / events * 1e6:.0f} bytes written {written / events:.0f} "
        f"bytes stored {_stored(db) / events:.0f}",
        file=sys.stderr,
    )
    return parse + write


def _stored(db: Path) -> int:
    """The store's size once vacuumed (what it holds, without free pages), in bytes."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("VACUUM")
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    return int(pages) * int(size)


def _gc_timer() -> list[float]:
    """A one-item list that sums the CPU time of the collector's runs from now on."""
    import gc

    total, start = [0.0], [0.0]

    def note(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            start[0] = time.process_time()
        else:
            total[0] += time.process_time() - start[0]

    gc.callbacks.append(note)
    return total


def _written() -> int:
    """Bytes this process has written (Linux: /proc/self/io's wchar), 0 elsewhere."""
    try:
        text = Path("/proc/self/io").read_text()
    except OSError:
        return 0
    return next(
        (int(v) for k, _, v in (ln.partition(": ") for ln in text.splitlines()) if k == "wchar"), 0
    )


def _run(src: str, events: int, batch: int, work: Path, name: str) -> float:
    db = work / f"{name}.db"
    for path in work.glob(f"{name}.db*"):
        path.unlink()
    tree, _, setup = src.partition("+")
    env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
    command = [sys.executable, "-m", "bench.ingest_trees", "--child", str(db)]
    command += ["--events", str(events), "--batch", str(batch)]
    if setup:
        command += ["--setup", str(Path(setup).resolve())]
    out = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    print(f"  {name}: {out.stderr.strip().splitlines()[-1]}", flush=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.ingest_trees")
    parser.add_argument(
        "trees",
        nargs="*",
        help="name=path/to/src[+setup.sql] (SQL run on the migrated store), the first the baseline",
    )
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--setup", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(child(args.events, args.batch, args.child, args.setup))
        return 0
    trees = dict(tree.split("=", 1) for tree in args.trees)
    names = list(trees)
    times: dict[str, list[float]] = {name: [] for name in names}
    with tempfile.TemporaryDirectory(prefix="ingest-trees-") as tmp:
        for n in range(args.rounds):
            order = names[n % len(names) :] + names[: n % len(names)]
            for name in order:
                took = _run(trees[name], args.events, args.batch, Path(tmp), name)
                times[name].append(took)
            line = ", ".join(f"{s} {times[s][-1] / args.events * 1e6:.0f}" for s in order)
            print(f"round {n + 1} (CPU µs an event): {line}", flush=True)
    load = os.getloadavg()
    print(
        f"{args.events:,} events a round in batches of {args.batch}, {args.rounds} rounds, "
        f"load {load[0]:.2f} {load[1]:.2f}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    base = statistics.median(times[names[0]])
    for name in names:
        median = statistics.median(times[name])
        print(
            f"{name}: median {median / args.events * 1e6:.0f} µs an event, "
            f"{median / base:.3f} of {names[0]}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
