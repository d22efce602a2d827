"""Job versions: what they cost at ingest, and how fast a job's versions page answers.

In one process, on SQLite files under ``bench/data/`` (deleted at the end):

1. **ingest**: the standard workload (:mod:`bench.workload`) goes, 100
   events a batch, into two stores through the real intake and writer
   (``parse_events`` and ``IngestPipeline.write_now``): one with job
   versions, one without (the event's parts are neither derived nor
   written, no run's version is stored: the baseline, the code before job
   versions). Each chunk goes to
   both, in alternating order, so load on the machine falls on both alike;
   the ratio of their CPU times (this thread's: ``write_now`` writes in
   the caller's thread) is the cost of job versions; wall times are
   printed beside.
   ``--rounds`` repeats this on fresh stores (the median ratio is the
   figure).
2. **reads**: on the store with versions, the versions page
   (``job_version_page``, 50 a page) and one version's detail of the jobs
   with the most runs, each timed many times: p50 and p95 in ms, beside a
   bare ``SELECT 1`` round trip measured in the same run.

Not part of the test suite; no timed assertions. Run from the repository
root::

    .venv/bin/python -m bench.job_versions --events 100000
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from pathlib import Path

import orjson
from sqlalchemy import func, select, text

from bench.workload import Workload
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.intake import row_builder
from feast_lineage.consumer.intake.body import parse_events
from feast_lineage.consumer.intake.facet_memo import FacetMemo
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.services.job_versions import job_version_detail, job_version_page
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.version_pages import VersionWindow
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.consumer.store.read.positions import PositionCache
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.write import batch
from feast_lineage.consumer.store.write.rows import RowBatch

DATA = Path(__file__).parent / "data"
_REAL_ADD_PARTS = vars(row_builder)["add_parts"]
_REAL_WRITE = vars(batch)["write_job_versions"]


def _nothing(*_args: object, **_kwargs: object) -> None:
    return None


class Side:
    def __init__(self, path: Path, *, versions: bool) -> None:
        self.engine = create_store_engine(f"sqlite:///{path}")
        upgrade_schema(self.engine)
        self.pipeline = IngestPipeline(self.engine)
        self.memo = FacetMemo()
        self.versions = versions
        self.seconds = 0.0  # wall
        self.cpu = 0.0

    def ingest(self, body: bytes) -> None:
        vars(row_builder)["add_parts"] = _REAL_ADD_PARTS if self.versions else _nothing
        vars(batch)["write_job_versions"] = _REAL_WRITE if self.versions else _nothing
        started, cpu = time.perf_counter(), time.thread_time()
        parsed = parse_events(body, 0, max_events=10_000, memo=self.memo)
        batches = [item for item in parsed.results if isinstance(item, RowBatch)]
        self.pipeline.write_now(batches)
        self.seconds += time.perf_counter() - started
        self.cpu += time.thread_time() - cpu
        vars(row_builder)["add_parts"] = _REAL_ADD_PARTS
        vars(batch)["write_job_versions"] = _REAL_WRITE


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered) * 1000, p95 * 1000


def ingest_round(where: Path, batches: list[bytes]) -> tuple[Side, Side]:
    """Both stores fed the same batches, alternating which goes first."""
    with_versions = Side(where / "with.db", versions=True)
    without = Side(where / "without.db", versions=False)
    for i, body in enumerate(batches):
        for side in (with_versions, without) if i % 2 == 0 else (without, with_versions):
            side.ingest(body)
    return with_versions, without


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=20, help="busiest jobs to read")
    parser.add_argument("--reads", type=int, default=50, help="reads per job and endpoint")
    parser.add_argument("--rounds", type=int, default=3, help="fresh pairs of stores")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)

    where = DATA / f"job-versions-{int(time.time())}"
    where.mkdir(parents=True)
    try:
        batches = Workload().take_batches(args.events, 100)
        rounds: list[dict[str, float]] = []
        for n in range(args.rounds):
            (where / str(n)).mkdir()
            with_versions, without = ingest_round(where / str(n), batches)
            rounds.append(
                {
                    "cpu_with": with_versions.cpu,
                    "cpu_without": without.cpu,
                    "cpu_ratio": with_versions.cpu / without.cpu,
                    "wall_ratio": with_versions.seconds / without.seconds,
                }
            )
            print(
                f"round {n + 1}: ingest of {args.events} events, CPU with versions "
                f"{with_versions.cpu:.2f} s, without {without.cpu:.2f} s, ratio "
                f"{rounds[-1]['cpu_ratio']:.3f} (wall ratio {rounds[-1]['wall_ratio']:.3f})"
            )
        ratio = statistics.median(r["cpu_ratio"] for r in rounds)
        print(f"median CPU ratio of {args.rounds} rounds: {ratio:.3f}")
        engine = with_versions.engine
        rv = t.run_versions.c
        with engine.connect() as conn:
            busiest = conn.execute(
                select(rv.job_id, func.count())
                .group_by(rv.job_id)
                .order_by(func.count().desc())
                .limit(args.jobs)
            ).all()
            counts = {
                name: conn.execute(select(func.count()).select_from(table)).scalar_one()
                for name, table in (
                    ("runs", t.runs),
                    ("jobs", t.jobs),
                    ("run_versions", t.run_versions),
                    ("job_versions", t.job_versions),
                )
            }
            names = {
                jid: (ns, name)
                for jid, ns, name in conn.execute(
                    select(t.jobs.c.id, t.jobs.c.namespace, t.jobs.c.name).where(
                        t.jobs.c.id.in_([b[0] for b in busiest])
                    )
                )
            }
        print(f"store: {counts}; busiest job has {busiest[0][1]} runs")
        reader = StoreReader(engine, Scope.everything(), {}, PositionCache())
        pages: list[float] = []
        details: list[float] = []
        bare: list[float] = []
        for _ in range(args.reads):
            for jid, _count in busiest:
                ns, name = names[jid]
                started = time.perf_counter()
                page = job_version_page(
                    reader,
                    namespace=ns,
                    name=name,
                    window=VersionWindow(limit=50),
                )
                pages.append(time.perf_counter() - started)
                vid = page.versions[-1].id
                started = time.perf_counter()
                job_version_detail(reader, namespace=ns, name=name, version=vid)
                details.append(time.perf_counter() - started)
                started = time.perf_counter()
                with engine.connect() as conn:
                    conn.execute(text("SELECT 1")).scalar()
                bare.append(time.perf_counter() - started)
        report = {
            "events": args.events,
            "ingest_rounds": rounds,
            "ingest_cpu_ratio": ratio,
            "store": counts,
            "versions_page_ms": _percentiles(pages),
            "version_detail_ms": _percentiles(details),
            "select_1_ms": _percentiles(bare),
        }
        for key in ("versions_page_ms", "version_detail_ms", "select_1_ms"):
            p50, p95 = report[key]
            print(f"{key}: p50 {p50:.2f}, p95 {p95:.2f}")
        print(orjson.dumps(report).decode())
    finally:
        if not args.keep:
            shutil.rmtree(where, ignore_errors=True)


if __name__ == "__main__":
    main()
