"""Where one event's ingest time goes, stage by stage, without HTTP.

In one process, on a temporary SQLite store (WAL, the server's engine
settings) first filled with ``--prefill`` events of :mod:`bench.workload`:

* CPU per event of parsing, validating and deriving (``parse_events``) and of
  the write transaction (``IngestPipeline.write_now``), for groups of 1, 4
  (what 4 single-event clients give the group commit at best) and 100 events;
* per write transaction: wall time of the commit and of each SQL statement.

CPU times (``time.process_time``) hold up on a busy machine better than wall
times; both are shown. This measures the server's internals, so it follows
their API: it is a development aid next to :mod:`bench.ingest`, not a target.

    .venv/bin/python -m bench.stages --prefill 10000
"""

from __future__ import annotations

import argparse
import inspect
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event

from bench.workload import Workload, WorkloadConfig
from feast_lineage.consumer.intake import body
from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
from feast_lineage.event_time import now_us
from feast_lineage.server import tune_gc

BENCH_DIR = Path(__file__).resolve().parent


def _parse_kwargs() -> dict[str, Any]:
    params = inspect.signature(body.parse_events).parameters
    if "memo" in params:  # a cache shared by the requests of one server
        from feast_lineage.consumer.intake import derive

        return {"memo": derive.FacetMemo()}  # type: ignore[attr-defined,unused-ignore]
    return {}


def _parse(data: bytes, kwargs: dict[str, Any]) -> list[Any]:
    parsed = body.parse_events(data, now_us(), max_events=100_000, **kwargs)
    return list(parsed.results)


class StatementTimer:
    """Wall time of each SQL statement and of the commits of one engine."""

    def __init__(self, engine: Any) -> None:
        self.times: dict[str, float] = {}
        self.counts: Counter[str] = Counter()
        self.commit = 0.0
        self._t = 0.0
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)
        dialect = engine.dialect
        original = dialect.do_commit

        def do_commit(dbapi_connection: Any) -> None:
            t = time.perf_counter()
            original(dbapi_connection)
            self.commit += time.perf_counter() - t

        dialect.do_commit = do_commit

    def _before(self, *_args: Any) -> None:
        self._t = time.perf_counter()

    def _after(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        key = " ".join(statement.split()[:3])[:60]
        self.times[key] = self.times.get(key, 0.0) + time.perf_counter() - self._t
        self.counts[key] += 1

    def reset(self) -> None:
        self.times.clear()
        self.counts.clear()
        self.commit = 0.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Ingest cost per stage, in-process")
    parser.add_argument("--prefill", type=int, default=10_000, help="events stored first")
    parser.add_argument("--events", type=int, default=3_000, help="events measured per group")
    parser.add_argument("--seed", type=int, default=WorkloadConfig.seed)
    args = parser.parse_args(argv)

    (BENCH_DIR / "data").mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="stages-", dir=BENCH_DIR / "data"))
    engine = create_store_engine(f"sqlite:///{tmp / 'lineage.db'}")
    try:
        upgrade_schema(engine)
        pipeline = IngestPipeline(engine)
        pipeline.start()
        tune_gc()  # as the server does
        kwargs = _parse_kwargs()
        workload = Workload(WorkloadConfig(seed=args.seed))
        for data in workload.iter_batches(args.prefill, 100):
            pipeline.write_now(_parse(data, kwargs))
        timer = StatementTimer(engine)
        print(f"store: {args.prefill:,} events first; {args.events:,} events per row\n")
        print(
            "| group | parse+validate+derive CPU µs/event | write CPU µs/event "
            "| write wall µs/event | commit ms/tx | statements/tx | SQL ms/tx |"
        )
        print("|---:|---:|---:|---:|---:|---:|---:|")
        details: list[str] = []
        for group in (1, 4, 100):
            events = workload.take(args.events)
            if group == 100:
                bodies = [orjson.dumps(events[i : i + 100]) for i in range(0, len(events), 100)]
            else:
                bodies = [orjson.dumps(e) for e in events]
            c0 = time.process_time()
            items = [item for data in bodies for item in _parse(data, kwargs)]
            parse_cpu = time.process_time() - c0
            timer.reset()
            c0, w0 = time.process_time(), time.perf_counter()
            for i in range(0, len(items), group):
                pipeline.write_now(items[i : i + group])
            write_cpu, write_wall = time.process_time() - c0, time.perf_counter() - w0
            n = len(items)
            tx = n / group
            sql = sum(timer.times.values())
            print(
                f"| {group} | {parse_cpu / n * 1e6:,.0f} | {write_cpu / n * 1e6:,.0f} "
                f"| {write_wall / n * 1e6:,.0f} | {timer.commit / tx * 1e3:.2f} "
                f"| {sum(timer.counts.values()) / tx:.1f} | {sql / tx * 1e3:.2f} |"
            )
            details.append(f"\nGroups of {group}: SQL statements by wall time per transaction\n")
            details.append("| statement | ms/tx | per tx |")
            details.append("|---|---:|---:|")
            slowest = sorted(timer.times.items(), key=lambda kv: -kv[1])[:12]
            for key, seconds in slowest:
                per_tx = timer.counts[key] / tx
                details.append(f"| `{key}` | {seconds / tx * 1e3:.3f} | {per_tx:.1f} |")
        print("\n".join(details))
        pipeline.stop()
    finally:
        engine.dispose()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
