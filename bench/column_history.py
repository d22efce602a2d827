"""Column lineage history for a store filled with the history workload (issue 39).

The history workload (``python -m bench.query --workload history``) states
no column lineage, so column lineage ``as_of`` has nothing to walk on its
1M-event store. This adds some, the way Spark would: runs of the store's
own jobs whose outputs carry the ``columnLineage`` dataset facet (1-2-0,
on the START and the COMPLETE), written through the store's ingest path
(:func:`bench.query.store_writer`, the server's ``write_now``):

* chains: walks of the store's current dataset lineage, dataset -> job ->
  dataset, of ``--hops`` (default 6) steps through leaf jobs (jobs with no
  child runs: the ones an integration reports column lineage for); every
  (job, output) pair a chain passes through states column lineage, so a
  field's lineage is at least five hops deep along its chain;
* each output column takes 1 to 3 fields of the job's inputs, the chain's
  previous dataset four times as often as another input, 20% INDIRECT
  (:func:`bench.workload.input_fields`), from the fields of the datasets'
  stored schemas;
* each column-lineage job runs ``--events / 2 / jobs`` times, at instants
  spread uniformly from when the job, its column-lineage outputs and their
  chain predecessors all existed to the store's last event; a run looks
  like the job's own runs then: its job facets (those of its latest event),
  the inputs and outputs of its latest listings at or before the instant
  (so it changes no job version), and the ``columnLineage`` facet on those
  outputs that are column-lineage outputs (the lineage draws from the
  inputs that existed at the first run);
* history: at each later run, with chance ``--change``, 1 to 3 output
  columns get new sources (a new payload), so ``as_of`` answers differ by
  instant.

The events are written in eventTime order, in chunks of 2,000 (one
transaction each), among the store's events of the same times (arriving
late, as backfills do). Deterministic for a seed and a store.

    .venv/bin/python -m bench.column_history --repo /path/to/query-history-1000000 --events 30000
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import random
import sqlite3
import time
import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bench.query import log, store_writer
from bench.workload import RUN_EVENT_SCHEMA, Dataset, Event, _facet, _iso, input_fields
from feast_lineage.event_time import SORT_OFFSET

# The chain's previous dataset is drawn this many times as often as another input.
PREVIOUS_WEIGHT = 4


@dataclass
class Job:
    """A leaf job of the store with its current inputs and outputs (dataset ids)."""

    id: int
    namespace: str
    name: str
    producer: str
    created_us: int
    inputs: list[int]
    outputs: list[int]
    # output -> the inputs that precede it in some chain (drawn more often)
    chained: dict[int, set[int]] = field(default_factory=dict)
    facets: dict[str, Any] = field(default_factory=dict)  # of its latest event
    # direction -> (times, datasets listed with the time each was first listed), oldest first
    listings: dict[str, tuple[list[int], list[list[tuple[int, int]]]]] = field(default_factory=dict)

    def listed_at(self, direction: str, at: int) -> list[int]:
        """What the job's latest listing of ``direction`` at or before ``at`` listed by then."""
        times, listed = self.listings.get(direction, ([], []))
        i = bisect.bisect_right(times, at) - 1
        return [ds for ds, first in listed[i] if first <= at] if i >= 0 else []


@dataclass(frozen=True)
class Store:
    """What the store holds that the column history is made of."""

    jobs: dict[int, Job]
    datasets: dict[int, tuple[str, str, int]]  # id -> (namespace, name, created_us)
    columns: dict[int, list[str]]  # id -> the field names of its latest schema
    span: tuple[int, int]


def _read(repo: Path) -> Store:
    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.read.columns import schema_payloads

    db = repo / "data" / "lineage.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        parents = {
            int(r[0])
            for r in conn.execute(
                "SELECT DISTINCT src_id FROM feast_lineage_edges"
                " WHERE edge_type IN ('parent', 'root')"
            )
        }
        jobs = {
            int(i): Job(int(i), ns, nm, prod or "", int(created), [], [])
            for i, ns, nm, prod, created in conn.execute(
                "SELECT id, namespace, name, producer, created_us FROM feast_lineage_jobs"
            )
            if int(i) not in parents
        }
        for job_id, ds, direction in conn.execute(
            "SELECT j.id, io.dataset_id, io.direction FROM feast_lineage_jobs j"
            " JOIN feast_lineage_run_io io ON (io.run_id = j.input_run AND io.direction = 'input')"
            " OR (io.run_id = j.output_run AND io.direction = 'output')"
        ):
            job = jobs.get(int(job_id))
            if job is not None:
                (job.inputs if direction == "input" else job.outputs).append(int(ds))
        datasets = {
            int(i): (ns, nm, int(created))
            for i, ns, nm, created in conn.execute(
                "SELECT id, namespace, name, created_us FROM feast_lineage_datasets"
            )
        }
        low, high = conn.execute(
            "SELECT min(started_us), max(last_event_us) FROM feast_lineage_runs"
        ).fetchone()
    finally:
        conn.close()
    engine = create_store_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as sa:
            payloads = schema_payloads(sa, datasets)
    finally:
        engine.dispose()
    columns: dict[int, list[str]] = {}
    for ds, payload in payloads.items():
        fields = orjson.loads(payload).get("fields") or []
        names = [
            f["name"] for f in fields if isinstance(f, dict) and isinstance(f.get("name"), str)
        ]
        if names:
            columns[ds] = names
    for job in jobs.values():
        job.inputs.sort()
        job.outputs.sort()
    return Store(jobs, datasets, columns, (int(low), int(high)))


def _chains(
    store: Store, rng: random.Random, hops: int, wanted_jobs: int
) -> list[list[tuple[int, int]]]:
    """Random walks of ``hops`` (job, output) steps along the current lineage, until enough jobs.

    A chain's datasets are distinct and all have a schema; its first
    dataset is an input of its first job.
    """
    out_of: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for job in sorted(store.jobs.values(), key=lambda j: j.id):
        for ds in job.inputs:
            if ds not in store.columns:
                continue
            for out in job.outputs:
                if out != ds and out in store.columns:
                    out_of[ds].append((job.id, out))
    starts = sorted(out_of)
    chains: list[list[tuple[int, int]]] = []
    used: set[int] = set()
    tries = 0
    while len(used) < wanted_jobs and tries < 200_000:
        tries += 1
        first = rng.choice(starts)
        seen, steps, here = {first}, [(0, first)], first
        while len(steps) <= hops:
            nexts = [(j, d) for j, d in out_of.get(here, ()) if d not in seen]
            if not nexts:
                break
            job_id, here = rng.choice(nexts)
            seen.add(here)
            steps.append((job_id, here))
        if len(steps) <= hops:
            continue
        for (_, before), (job_id, ds) in itertools.pairwise(steps):
            store.jobs[job_id].chained.setdefault(ds, set()).add(before)
            used.add(job_id)
        chains.append(steps)
    return chains


def _load_history(repo: Path, jobs: list[Job]) -> None:
    """Each job's facets (of its latest event) and its input and output listings over time."""
    from sqlalchemy import select

    from feast_lineage.consumer.store.engine.database import create_store_engine
    from feast_lineage.consumer.store.schema import tables as t

    db = repo / "data" / "lineage.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        for job in jobs:
            rows = conn.execute(
                "SELECT l.direction, l.rank, io.dataset_id, io.first_us"
                " FROM feast_lineage_io_listings l JOIN feast_lineage_run_io io"
                " ON io.run_id = l.run_key AND io.direction = l.direction"
                " WHERE l.job_id = ? ORDER BY l.direction, l.rank",
                (job.id,),
            ).fetchall()
            for direction, rank, ds, first in rows:
                times, listed = job.listings.setdefault(direction, ([], []))
                time_us = int(rank[:20]) - SORT_OFFSET
                if not times or times[-1] != time_us:
                    times.append(time_us)
                    listed.append([])
                listed[-1].append((int(ds), int(first if first is not None else time_us)))
    finally:
        conn.close()
    engine = create_store_engine(f"sqlite:///{db}")
    e = t.events.c
    try:
        with engine.connect() as sa:
            for job in jobs:
                payload = sa.execute(
                    select(e.payload)
                    .where(e.subject_id == job.id, e.kind == "run")
                    .order_by(e.event_time_us.desc(), e.id.desc())
                    .limit(1)
                ).scalar_one()
                job.facets = orjson.loads(payload)["job"].get("facets") or {}
    finally:
        engine.dispose()


@dataclass
class Stats:
    events: int = 0
    runs: int = 0
    stating: int = 0  # runs whose outputs then included a column-lineage output
    payloads: int = 0  # distinct (job, output) payloads stated
    changes: int = 0  # runs that gave some column new sources
    columns_changed: int = 0
    edges: int = 0  # field edges of the distinct payloads


def _sources(job: Job, out: int, store: Store, begin: int) -> list[tuple[Dataset, list[str]]]:
    """The inputs an output column draws from (those there by ``begin``), the chain's favoured."""
    pool: list[tuple[Dataset, list[str]]] = []
    for ds in job.inputs:
        if ds == out or ds not in store.columns or store.datasets[ds][2] > begin:
            continue
        ns, name, _ = store.datasets[ds]
        ref = (Dataset(ns, name, 0, {}), store.columns[ds])
        pool += [ref] * (PREVIOUS_WEIGHT if ds in job.chained[out] else 1)
    return pool


def _events(
    store: Store, rng: random.Random, runs: int, change: float, stats: Stats
) -> list[Event]:
    low, high = store.span
    events: list[Event] = []
    for job in sorted(store.jobs.values(), key=lambda j: j.id):
        if not job.chained:
            continue
        needed = [*job.chained, *(d for preds in job.chained.values() for d in preds)]
        begin = max(low, job.created_us, *(store.datasets[d][2] for d in needed))
        lineage = {
            out: {
                column: input_fields(rng, _sources(job, out, store, begin))
                for column in store.columns[out]
            }
            for out in sorted(job.chained)
        }
        stats.payloads += len(lineage)
        stats.edges += sum(len(v) for by in lineage.values() for v in by.values())
        for i, at in enumerate(
            sorted(begin + int((high - begin) * rng.random()) for _ in range(runs))
        ):
            if i and rng.random() < change:
                stats.changes += 1
                out = rng.choice(sorted(lineage))
                fields = dict(lineage[out])
                for column in rng.sample(store.columns[out], rng.randint(1, 3)):
                    fields[column] = input_fields(rng, _sources(job, out, store, begin))
                    stats.columns_changed += 1
                lineage[out] = fields
                stats.payloads += 1
                stats.edges += sum(len(v) for v in fields.values())
            run_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            end = at + 30_000_000 + int(rng.random() * 600_000_000)
            io = (job.listed_at("input", at), job.listed_at("output", at))
            if not io[1]:
                continue  # the job wrote nothing yet
            stats.runs += 1
            stats.stating += any(ds in lineage for ds in io[1])
            for kind, when in (("START", at), ("COMPLETE", end)):
                events.append(_event(store, job, io, run_id, (kind, when), lineage))
    events.sort(key=lambda e: (e["eventTime"], e["run"]["runId"], e["eventType"] == "COMPLETE"))
    stats.events = len(events)
    return events


def _event(
    store: Store,
    job: Job,
    io: tuple[list[int], list[int]],
    run_id: str,
    when: tuple[str, int],
    lineage: dict[int, dict[str, Any]],
) -> Event:
    kind, at = when
    inputs, listed = io

    def ref(ds: int) -> dict[str, Any]:
        ns, name, _ = store.datasets[ds]
        return {"namespace": ns, "name": name, "facets": {}}

    outputs = []
    for ds in listed:
        item = ref(ds)
        by_column = lineage.get(ds)
        if by_column is not None:
            fields = {c: {"inputFields": v} for c, v in by_column.items() if v}
            item["facets"] = {
                "columnLineage": _facet(
                    job.producer, "ColumnLineageDatasetFacet", "1-2-0", fields=fields
                )
            }
        outputs.append(item)
    return {
        "eventType": kind,
        "eventTime": _iso(at),
        "producer": job.producer,
        "schemaURL": RUN_EVENT_SCHEMA,
        "run": {"runId": run_id, "facets": {}},
        "job": {"namespace": job.namespace, "name": job.name, "facets": job.facets},
        "inputs": [ref(ds) for ds in inputs],
        "outputs": outputs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.column_history", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=24, help="runs of each column-lineage job")
    parser.add_argument("--hops", type=int, default=6, help="(job, output) steps of a chain")
    parser.add_argument("--change", type=float, default=0.2, help="chance a run changes sources")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--dry-run", action="store_true", help="make the events, write none")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    started = time.monotonic()
    store = _read(args.repo)
    log(
        f"read {len(store.jobs):,} leaf jobs, {len(store.columns):,} datasets with a schema "
        f"({time.monotonic() - started:.0f} s)"
    )
    chains = _chains(store, rng, args.hops, max(1, args.events // (2 * args.runs)))
    _load_history(args.repo, [j for j in store.jobs.values() if j.chained])
    stats = Stats()
    events = _events(store, rng, args.runs, args.change, stats)
    jobs = sum(1 for j in store.jobs.values() if j.chained)
    pairs = sum(len(j.chained) for j in store.jobs.values())
    log(
        f"{len(chains):,} chains of {args.hops} hops through {jobs:,} jobs "
        f"({pairs:,} (job, output) pairs); {stats.runs:,} runs ({stats.stating:,} writing a "
        f"column-lineage output), {stats.events:,} events "
        f"from {events[0]['eventTime']} to {events[-1]['eventTime']}; "
        f"{stats.payloads:,} payloads ({stats.changes:,} changes of "
        f"{stats.columns_changed:,} columns), {stats.edges:,} field edges stated"
    )
    if args.dry_run:
        return 0
    started = time.monotonic()
    with store_writer(args.repo) as write:
        for start in range(0, len(events), 2000):
            write(events[start : start + 2000])
            done = min(start + 2000, len(events))
            if done % 10_000 == 0 or done == len(events):
                rate = done / (time.monotonic() - started)
                log(f"  wrote {done:,} events ({rate:.0f} events/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
