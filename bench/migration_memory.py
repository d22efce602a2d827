"""Peak memory and time of migration 0010 (explicit lineage) on a filled store, two codes.

In one process, without HTTP, it fills a SQLite store at the head revision
with ``--events`` events of :mod:`bench.workload` (the standard workload,
each event given explicit lineage as a platform states it: a ``lineage``
job facet on every event with inputs and outputs, its first three output
columns mapped to input fields, and on every child run a ``jobDependencies``
run facet naming the parent job and its run, so a payload a run), then
downgrades it to 0009 and keeps that file. Each measured run is a fresh
process on a copy of the file that upgrades it to 0010 with one code:
``before`` (``--before-src``, e.g. the ``src/`` of an earlier commit, put
first on ``PYTHONPATH``) or ``after`` (this checkout). Runs alternate,
before then after, ``--rounds`` times.

Per run: the process's peak resident memory (``VmHWM``) and its resident
memory right before the upgrade (imports, engine), their difference (what
the migration itself held at its peak), wall and CPU time. After each run
the derived tables (explicit and column edges and pointers, jobs, datasets)
are read in key order and hashed: every run of both codes must give the
same digest, or the report says which differ.

    .venv/bin/python -m bench.migration_memory --sizes 25000,100000 \\
        --before-src bench/data/main-src/src
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from bench.workload import Event, Workload, WorkloadConfig

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
LINEAGE_SCHEMA = "https://openlineage.io/spec/facets/1-0-0/LineageFacet.json#/$defs/LineageJobFacet"
DEPENDENCIES_SCHEMA = (
    "https://openlineage.io/spec/facets/1-0-1/JobDependenciesRunFacet.json"
    "#/$defs/JobDependenciesRunFacet"
)
DERIVED = (
    "feast_lineage_explicit_edges",
    "feast_lineage_explicit_lineage",
    "feast_lineage_column_edges",
    "feast_lineage_column_lineage",
    "feast_lineage_jobs",
    "feast_lineage_datasets",
)


# --- the store ----------------------------------------------------------------------


def _columns(ds: dict[str, Any]) -> list[str]:
    schema = (ds.get("facets") or {}).get("schema") or {}
    return [f["name"] for f in schema.get("fields") or []]


def _ref(ds: dict[str, Any]) -> dict[str, Any]:
    return {"namespace": ds["namespace"], "name": ds["name"], "type": "DATASET"}


def _job_lineage(event: Event) -> dict[str, Any]:
    inputs = event["inputs"]
    entries = []
    for out in event["outputs"]:
        fields: dict[str, Any] = {}
        for i, column in enumerate(_columns(out)[:3]):
            source = inputs[i % len(inputs)]
            source_columns = _columns(source) or [column]
            fields[column] = {
                "inputs": [
                    {**_ref(source), "field": source_columns[i % len(source_columns)]},
                ]
            }
        entries.append({**_ref(out), "inputs": [_ref(ds) for ds in inputs], "fields": fields})
    return {"_producer": event["producer"], "_schemaURL": LINEAGE_SCHEMA, "entries": entries}


def _dependencies(event: Event, parent: dict[str, Any]) -> dict[str, Any]:
    upstream = {
        "job": parent["job"],
        "run": parent["run"],
        "dependency_type": "DIRECT_INVOCATION",
        "sequence_trigger_rule": "START_TO_START",
        "status_trigger_rule": "EXECUTE_EVERY_TIME",
    }
    return {
        "_producer": event["producer"],
        "_schemaURL": DEPENDENCIES_SCHEMA,
        "upstream": [upstream],
        "trigger_rule": "ALL_SUCCESS",
    }


def with_explicit_lineage(event: Event) -> Event:
    """``event`` with the explicit lineage facets a platform stating its lineage adds."""
    if event["inputs"] and event["outputs"]:
        job = event["job"]
        event["job"] = {**job, "facets": {**job["facets"], "lineage": _job_lineage(event)}}
    run = event["run"]
    parent = run["facets"].get("parent")
    if parent is not None:
        facets = {**run["facets"], "jobDependencies": _dependencies(event, parent)}
        event["run"] = {**run, "facets": facets}
    return event


def _batches(n: int, seed: int) -> Iterator[bytes]:
    workload = Workload(WorkloadConfig(seed=seed))
    left = n
    while left > 0:
        events = [with_explicit_lineage(e) for e in workload.take(min(100, left))]
        left -= len(events)
        yield orjson.dumps(events)


def fill(path: Path, events: int, seed: int) -> dict[str, int]:
    """A store of ``events`` events at the head revision, then downgraded to 0009."""
    from alembic import command

    from feast_lineage.consumer.intake import body
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.store.engine.database import (
        alembic_config,
        create_store_engine,
        upgrade_schema,
    )
    from feast_lineage.consumer.store.write.rows import RowBatch
    from feast_lineage.event_time import now_us

    engine = create_store_engine(f"sqlite:///{path}")
    try:
        upgrade_schema(engine)
        pipeline = IngestPipeline(engine)
        for data in _batches(events, seed):
            parsed = body.parse_events(data, now_us(), max_events=1000)
            batches = [r for r in parsed.results if isinstance(r, RowBatch)]
            if len(batches) != len(parsed.results):
                raise RuntimeError(f"invalid events: {parsed.results}")
            pipeline.write_now(batches)
        counts = _counts(engine)
        config = alembic_config(engine)
        with engine.begin() as conn:
            config.attributes["connection"] = conn
            command.downgrade(config, "0009")
    finally:
        engine.dispose()
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return counts


def _counts(engine: Any) -> dict[str, int]:
    with engine.connect() as conn:
        return {
            name: conn.exec_driver_sql(f"SELECT COUNT(*) FROM {name}").scalar()
            for name in ("feast_lineage_events", *DERIVED)
        }


def derived_digest(path: Path) -> str:
    """A digest of every derived row, read in key order."""
    h = hashlib.blake2b(digest_size=16)
    with sqlite3.connect(path) as conn:
        for table in DERIVED:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            order = ", ".join(columns)
            for row in conn.execute(f"SELECT {order} FROM {table} ORDER BY {order}"):
                h.update(repr(row).encode())
    return h.hexdigest()


# --- one measured run (a child process) ----------------------------------------------


def _status(field: str) -> int:
    """A ``/proc/self/status`` figure, in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(path: Path) -> None:
    from alembic import command

    import feast_lineage
    from feast_lineage.consumer.store.engine.database import alembic_config, create_store_engine

    engine = create_store_engine(f"sqlite:///{path}")
    config = alembic_config(engine)
    with engine.connect() as conn:  # the connection and the dialect, ready
        conn.exec_driver_sql("SELECT 1")
    rss_before = _status("VmRSS")
    wall, cpu = time.perf_counter(), time.process_time()
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "0010")
    result = {
        "code": str(Path(feast_lineage.__file__).parent),
        "id_cache": _id_cache_entries(),
        "rss_before": rss_before,
        "peak": _status("VmHWM"),
        "wall": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
    }
    engine.dispose()
    print(json.dumps(result))


def _id_cache_entries() -> int:
    """Entries of the memoized id hash the migration used (a bounded cache, in both codes)."""
    import importlib

    for name in (
        "feast_lineage.consumer.store.schema.migrations.frozen.ids_0009",
        "feast_lineage.identity",
    ):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        info = module._h.cache_info()
        if info.currsize:
            return int(info.currsize)
    return 0


def measure(snapshot: Path, work: Path, src: Path | None) -> dict[str, Any]:
    shutil.copyfile(snapshot, work)
    env = dict(os.environ)
    # The code measured comes first: before the checkout's own (installed editable).
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(ROOT)] if src else [str(ROOT)])
    out = subprocess.run(
        [sys.executable, "-m", "bench.migration_memory", "--child", str(work)],
        env=env,
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    result["digest"] = derived_digest(work)
    work.unlink()
    return result


# --- the report ----------------------------------------------------------------------


def _mb(n: float) -> str:
    return f"{n / 1e6:,.0f} MB"


def _git(*args: str) -> str:
    out = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return out.stdout.strip()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Peak memory of migration 0010, two codes")
    parser.add_argument("--sizes", default="25000,100000", help="store sizes, in events")
    parser.add_argument("--before-src", type=Path, help="src/ of the code to compare with")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=WorkloadConfig.seed)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return

    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    data = BENCH_DIR / "data" / f"migration-{stamp}"
    data.mkdir(parents=True)
    codes: list[tuple[str, Path | None]] = [("after", None)]
    if args.before_src is not None:
        codes.insert(0, ("before", args.before_src.resolve()))
    dirty = "dirty" if _git("status", "--porcelain", "src") else "clean"
    lines = [
        f"# Migration 0010: peak memory, {stamp} UTC",
        "",
        f"Commit {_git('rev-parse', '--short', 'HEAD')} ({dirty} src/);"
        f" before: `{args.before_src}`; machine: {platform.machine()}, {os.cpu_count()} cores,"
        f" Python {platform.python_version()}, SQLite {sqlite3.sqlite_version};"
        f" 1-minute load at the start {os.getloadavg()[0]:.1f}.",
        "",
        "| events | code | round | peak RSS | RSS before | migration's peak (difference)"
        " | wall s | CPU s | id cache entries | derived rows digest |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    notes: list[str] = []
    for size in (int(s) for s in args.sizes.split(",")):
        snapshot = data / f"store-{size}.db"
        t0 = time.perf_counter()
        counts = fill(snapshot, size, args.seed)
        notes.append(
            f"- {size:,} events: filled in {time.perf_counter() - t0:,.0f} s; at the head:"
            f" {json.dumps(counts)}; the file at 0009: {snapshot.stat().st_size / 1e6:,.0f} MB."
        )
        print(notes[-1], flush=True)
        digests: set[str] = set()
        for round_ in range(1, args.rounds + 1):
            for name, src in codes:
                r = measure(snapshot, data / "work.db", src)
                digests.add(r["digest"])
                row = (
                    f"| {size:,} | {name} | {round_} | {_mb(r['peak'])} | {_mb(r['rss_before'])}"
                    f" | {_mb(r['peak'] - r['rss_before'])} | {r['wall']:.1f} | {r['cpu']:.1f}"
                    f" | {r['id_cache']:,}"
                    f" | `{r['digest']}` |"
                )
                lines.append(row)
                print(row, f"({r['code']}, load {os.getloadavg()[0]:.1f})", flush=True)
        same = "the same" if len(digests) == 1 else "DIFFERENT"
        notes.append(
            f"- {size:,} events: every run's derived rows are {same} ({len(digests)} digest)."
        )
        if not args.keep:
            snapshot.unlink()
    lines += ["", *notes, ""]
    report = BENCH_DIR / "results" / f"migration-0010-{stamp}.md"
    report.write_text("\n".join(lines))
    print(f"report: {report}")
    if not args.keep:
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
