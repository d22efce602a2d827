"""The cluster's write rate with 1 and 2 replicas on one PostgreSQL database.

Each replica is a ``serve_lineage --workers 1`` process (a pod of the
Kubernetes Deployment); all of them store in one PostgreSQL database, which
this benchmark starts with initdb and pg_ctl (Debian's postgresql package).
Clients spread over the replicas as a Service does: two threads per replica
send batches of 100 events for ``--seconds``, then two threads per replica
send single events. Replicas parse and derive in parallel, but their write
transactions take turns on the store's advisory lock, so the cluster writes
at about one writer's rate; this measures how close.

    .venv/bin/python -m bench.replicas            # about two minutes
    .venv/bin/python -m bench.replicas --replicas 1,2,3 --seconds 20

It prints a table and writes ``bench/results/replicas-<time>.md``.
"""

from __future__ import annotations

import argparse
import os
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from sqlalchemy import create_engine, text
from tests.postgres import postgres_server

from bench.ingest import (
    BENCH_DIR,
    LoadResult,
    Server,
    free_port,
    lineage_cmd,
    machine_details,
    run_load,
    settle,
    start_server,
)
from bench.workload import Workload


@dataclass
class Phase:
    events: int
    wall: float
    errors: int

    @property
    def rate(self) -> float:
        return self.events / self.wall if self.wall > 0 else 0.0


def write_repo(repo: Path, database_url: str) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    config = {
        "project": "bench",
        "registry": "data/registry.db",
        "provider": "local",
        "entity_key_serialization_version": 3,
        "openlineage": {"consumer": {"enabled": True, "connection_string": database_url}},
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return repo


def spread(
    label: str, servers: list[Server], bodies: list[bytes], per_body: int, seconds: float
) -> Phase:
    """POST ``bodies`` to every replica at once, two client threads each; the cluster's rate."""
    share = len(bodies) // len(servers)
    results: list[LoadResult] = []
    path = "/api/v1/lineage/batch" if per_body > 1 else "/api/v1/lineage"

    def load(index: int, server: Server) -> None:
        mine = bodies[index * share : (index + 1) * share]
        result = run_load(
            f"{label} {server.name}",
            server.port,
            path,
            mine,
            [per_body] * len(mine),
            threads=2,
            seconds=seconds,
            cycle=False,
        )
        results.append(result)

    threads = [threading.Thread(target=load, args=(i, server)) for i, server in enumerate(servers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return Phase(
        events=sum(r.events for r in results),
        wall=max(r.wall for r in results),
        errors=sum(r.errors for r in results),
    )


def stored(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM openlineage_events")).scalar_one())
    finally:
        engine.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", default="1,2", help="replica counts to measure")
    parser.add_argument("--seconds", type=float, default=15, help="duration of each phase")
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    args = parser.parse_args(argv)
    counts = [int(n) for n in args.replicas.split(",")]
    started = datetime.now(tz=UTC)
    data = BENCH_DIR / "data" / f"replicas-{started:%Y%m%d-%H%M%S}"
    data.mkdir(parents=True, exist_ok=True)
    rows: list[str] = []
    with postgres_server() as pg:
        for replicas in counts:
            url = pg.create_database()
            repo = write_repo(data / f"repo-{replicas}", url)
            workload = Workload()
            batches = workload.take_batches(60_000 * max(replicas, 1), 100)
            singles = workload.take_json(30_000 * max(replicas, 1))
            servers = [
                start_server(
                    f"replica-{i}",
                    lineage_cmd(repo, 1, free_port()),
                    data / f"replica-{replicas}-{i}.log",
                    {},
                )
                for i in range(replicas)
            ]
            try:
                settle()
                batch = spread("batches", servers, batches, 100, args.seconds)
                settle()
                single = spread("singles", servers, singles, 1, args.seconds)
            finally:
                for server in servers:
                    server.stop()
            total = stored(url)
            acknowledged = batch.events + single.events
            print(
                f"{replicas} replica(s): batches {batch.rate:,.0f} events/s, "
                f"singles {single.rate:,.0f} events/s, stored {total:,} of {acknowledged:,}"
            )
            rows.append(
                f"| {replicas} | {batch.rate:,.0f} | {single.rate:,.0f} | "
                f"{batch.errors + single.errors} | {total:,} | {acknowledged:,} |"
            )
    load = os.getloadavg()
    report = [
        f"# Replicas on one PostgreSQL database ({started:%Y-%m-%d %H:%M} UTC)",
        "",
        f"Command: `python -m bench.replicas --replicas {args.replicas} "
        f"--seconds {args.seconds:g}`; each replica `serve_lineage --workers 1`, "
        "two client threads per replica per phase, batches of 100 events, then single events.",
        "",
        "| replicas | batches: events/s | singles: events/s | errors | stored | acknowledged |",
        "|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"Load average at the end: {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} "
        "(the machine is shared: compare rows of one run, not runs).",
        "",
        *(f"- {key}: {value}" for key, value in machine_details()),
        "",
    ]
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"replicas-{started:%Y%m%d-%H%M%S}.md"
    out.write_text("\n".join(report))
    print(f"report: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
