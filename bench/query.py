"""Query benchmark: how fast the lineage server answers the read API.

For each store size (events of :mod:`bench.workload`, the ingest benchmark's
stream) it fills a SQLite store (or reuses one left by an earlier run with
``--keep``) through the real ingest path (validation, derive, the writer's
``write_now``), starts the real ``feast-lineage serve_lineage`` process on
it, and measures p50/p95 latency of sequential requests over one keep-alive
connection:

* subgraph around a random job or dataset, depth 3 and depth 10 (both ways);
* a graph page of 500 nodes at a random offset;
* event and run pages (50 rows) at random offsets, always including the
  first and the deepest page;
* a dataset search by a name substring;
* the detail of a random run (its facets and its datasets' facets are merged
  from the run's events when it is read);

with ``--workload columns`` (the stream with column-heavy Spark chains, see
:mod:`bench.workload`) also column lineage: one field of a chain's dataset at
depth 5, and every column of its widest datasets (45 to 50 columns) at
depth 3, both directions;

each also as a ratio to ``GET /healthz`` measured in the same run. The first
event and run page of a list builds its position index; that one-off time is
reported as "cold". The report is written to ``bench/results/query-<time>.md``
(a reference run's table then goes into ``bench/RESULTS.md`` by hand).

    .venv/bin/python -m bench.query --sizes 10000,100000,1000000 --keep
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import httpx
import orjson

from bench.ingest import free_port, lineage_cmd, machine_details, start_server, write_repo
from bench.workload import WORKLOADS, Event, Workload, WorkloadConfig, config_for

BENCH_DIR = Path(__file__).resolve().parent
API = "/api/v1/lineage/openlineage"
TARGETS_MS = {
    "subgraph depth 3": 20,
    "subgraph depth 10": 100,
    "graph page (500 nodes)": 100,
    "events page": 20,
    "runs page": 20,
    "column lineage, one field, depth 5": 30,
    "column lineage, all columns of a wide dataset, depth 3": 100,
}


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def fill(
    repo: Path, n: int, seed: int, workload_name: str = "standard", resume_from: int = 0
) -> float:
    """Write ``n`` workload events into the repo's store; returns seconds taken.

    Each chunk of 2,000 events is one transaction of the writer (``write_now``),
    in this process, not over HTTP, with the server's collector settings. With
    ``resume_from`` the store already holds that many events of the same
    (seeded) stream: they are generated again and skipped, so a fill stopped
    between chunks goes on where it stopped.
    """
    workload = Workload(config_for(workload_name, seed))
    started = time.monotonic()
    done = 0
    while done < resume_from:
        done += len(workload.take(min(2000, resume_from - done)))
    if resume_from:
        log(f"  skipped the {resume_from:,} events stored ({time.monotonic() - started:.0f} s)")
    with store_writer(repo) as write:
        while done < n:
            chunk = workload.take(min(2000, n - done))
            write(chunk)
            done += len(chunk)
            if done % 20_000 == 0:
                rate = (done - resume_from) / (time.monotonic() - started)
                log(f"  filled {done:,} events ({rate:.0f} events/s)")
    return time.monotonic() - started


@contextmanager
def store_writer(repo: Path) -> Iterator[Callable[[list[Event]], None]]:
    """A function writing a chunk of events into the repo's SQLite store, as the server does.

    Each call is one transaction of the writer (``write_now``), in this
    process, not over HTTP, with the server's collector settings (its
    garbage collector tuning and facet memo). Events the intake refuses
    are left out.
    """
    from feast_lineage.consumer.intake.body import parse_events
    from feast_lineage.consumer.intake.facet_memo import FacetMemo
    from feast_lineage.consumer.intake.pipeline import IngestPipeline
    from feast_lineage.consumer.store.engine.database import create_store_engine, upgrade_schema
    from feast_lineage.consumer.store.engine.meta import ensure_meta
    from feast_lineage.event_time import now_us
    from feast_lineage.server import tune_gc

    tune_gc()  # as the server does: ingest allocates many short-lived objects
    engine = create_store_engine(f"sqlite:///{repo / 'data' / 'lineage.db'}")
    upgrade_schema(engine)
    pipeline = IngestPipeline(engine)
    memo = FacetMemo()  # as the server keeps one
    with engine.begin() as conn:
        ensure_meta(conn)

    def write(chunk: list[Event]) -> None:
        parsed = parse_events(orjson.dumps(chunk), now_us(), max_events=10_000, memo=memo)
        pipeline.write_now([r for r in parsed.results if not isinstance(r, Exception)])

    try:
        yield write
    finally:
        engine.dispose()


def stored_events(repo: Path) -> int:
    import sqlite3

    db = repo / "data" / "lineage.db"
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM feast_lineage_events").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


def column_targets(
    repo: Path,
) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]], dict[str, int]]:
    """(dataset, field) pairs with column lineage, the widest datasets, and what the store holds."""
    import sqlite3

    conn = sqlite3.connect(f"file:{repo / 'data' / 'lineage.db'}?mode=ro", uri=True)
    try:
        fields = conn.execute(
            "SELECT d.namespace, d.name, e.dst_field FROM feast_lineage_column_edges e"
            " JOIN feast_lineage_datasets d ON d.id = e.dst_dataset_id"
            " WHERE e.dst_field IS NOT NULL GROUP BY d.namespace, d.name, e.dst_field"
        ).fetchall()
        wide = conn.execute(
            "SELECT d.namespace, d.name FROM feast_lineage_column_edges e"
            " JOIN feast_lineage_datasets d ON d.id = e.dst_dataset_id"
            " GROUP BY d.namespace, d.name HAVING count(DISTINCT e.dst_field) >= 45"
        ).fetchall()
        counts = {
            "column edges": int(
                conn.execute("SELECT count(*) FROM feast_lineage_column_edges").fetchone()[0]
            ),
            "column lineage pointers": int(
                conn.execute("SELECT count(*) FROM feast_lineage_column_lineage").fetchone()[0]
            ),
        }
    finally:
        conn.close()
    return fields, wide, counts


@dataclass
class Result:
    name: str
    samples: list[float]
    cold_ms: float | None = None

    def pct(self, p: float) -> float:
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))]


def timed(client: httpx.Client, url: str) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code} {response.text[:300]}")
    return elapsed, response


def measure(client: httpx.Client, urls: list[str], name: str) -> Result:
    return Result(name, [timed(client, u)[0] for u in urls])


def every(client: httpx.Client, path: str) -> list[dict[str, str]]:
    """Every item of a catalog list, page by page."""
    items: list[dict[str, str]] = []
    while True:
        page = client.get(f"{API}{path}", params={"limit": 1000, "offset": len(items)}).json()
        found = page[path.strip("/").split("?")[0]]  # /datasets -> "datasets"
        items.extend(found)
        if not found or len(items) >= page["total"]:
            return items


def run_size(
    repo: Path, size: int, requests: int, seed: int, columns: bool = False
) -> tuple[list[Result], dict[str, int]]:
    rng = random.Random(seed)
    port = free_port()
    # Retention off: the workload's events are dated 2026-01-01 on, and the
    # default 30 days would have the server prune the store it is measured on.
    keep_all = {"FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS": "0"}
    server = start_server(
        "lineage", lineage_cmd(repo, 1, port), repo / f"server-{port}.log", keep_all
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            for _ in range(20):
                client.get("/healthz")
            jobs = every(client, "/jobs")
            datasets = every(client, "/datasets")
            counts = {"jobs": len(jobs), "datasets": len(datasets)}
            centers = [("job", j["job_namespace"], j["job_name"]) for j in jobs] + [
                ("dataset", d["dataset_namespace"], d["dataset_name"]) for d in datasets
            ]

            def sub(depth: int) -> list[str]:
                out = []
                for _ in range(requests):
                    kind, ns, name = rng.choice(centers)
                    out.append(
                        f"{API}/graph/{kind}/{quote(ns, safe='')}/{quote(name, safe='')}"
                        f"?depth={depth}"
                    )
                return out

            results = [measure(client, ["/healthz"] * requests, "baseline GET /healthz")]
            if columns:
                fields, wide, held = column_targets(repo)
                counts.update(held)

                def col_url(ns: str, name: str, query: str) -> str:
                    path = f"{quote(ns, safe='')}/{quote(name, safe='')}"
                    return f"{API}/datasets/{path}/columns?{query}"

                one = [rng.choice(fields) for _ in range(requests)]
                results.append(
                    measure(
                        client,
                        [col_url(ns, n, f"field={quote(f)}&depth=5") for ns, n, f in one],
                        "column lineage, one field, depth 5",
                    )
                )
                whole = [rng.choice(wide) for _ in range(requests)]
                results.append(
                    measure(
                        client,
                        [col_url(ns, n, "depth=3") for ns, n in whole],
                        "column lineage, all columns of a wide dataset, depth 3",
                    )
                )
                sizes = [
                    len(timed(client, col_url(ns, n, "depth=3"))[1].json()["edges"])
                    for ns, n in whole[:10]
                ]
                counts["edges per wide answer (median of 10)"] = int(statistics.median(sizes))
            results.append(measure(client, sub(3), "subgraph depth 3"))
            results.append(measure(client, sub(10), "subgraph depth 10"))
            nodes = client.get(f"{API}/graph", params={"limit": 1}).json()["total_nodes"]
            counts["nodes"] = nodes
            results.append(
                measure(
                    client,
                    [
                        f"{API}/graph?limit=500&offset={rng.randrange(max(nodes - 500, 1))}"
                        for _ in range(requests)
                    ],
                    "graph page (500 nodes)",
                )
            )
            for name, path in (("events page", "/events"), ("runs page", "/runs")):
                cold, first = timed(client, f"{API}{path}?limit=50")
                total = first.json()["total"]
                counts[name.split()[0]] = total
                offsets = [0, max(total - 50, 0), total // 2]
                offsets += [rng.randrange(max(total - 50, 1)) for _ in range(requests - 3)]
                result = measure(
                    client, [f"{API}{path}?limit=50&offset={o}" for o in offsets], name
                )
                result.cold_ms = cold
                results.append(result)
                if path == "/runs":
                    run_ids = [
                        item["run_id"]
                        for o in rng.sample(offsets, min(len(offsets), 10))
                        for item in client.get(f"{API}/runs?limit=50&offset={o}").json()["runs"]
                    ]
                    detail = [f"{API}/runs/{rng.choice(run_ids)}" for _ in range(requests)]
                    results.append(measure(client, detail, "run detail"))
            words = [d["dataset_name"].split("/")[-1].split(".")[-1][:6] for d in datasets]
            results.append(
                measure(
                    client,
                    [f"{API}/datasets?search={quote(rng.choice(words))}" for _ in range(requests)],
                    "datasets search",
                )
            )
            return results, counts
    finally:
        server.stop()


def render(
    sizes: list[int],
    by_size: dict[int, tuple[list[Result], dict[str, int], float | None]],
    command: str,
    requests: int,
) -> str:
    lines = [
        "## Queries",
        "",
        f"`{command}` ({datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}). "
        f"{requests} sequential requests per row over one keep-alive connection to a real "
        "`feast-lineage serve_lineage` process on a SQLite store filled with the ingest "
        "benchmark's workload; subgraph centers, page offsets and search words are random "
        "(seeded), event and run pages always include the first and the deepest page. "
        "Ratios are to `GET /healthz` in the same run, as this machine is noisy. "
        f"1-minute load average at the end: {os.getloadavg()[0]:.2f}.",
        "",
    ]
    for key, value in machine_details():
        lines.append(f"- {key}: {value}")
    lines.append("")
    for size in sizes:
        results, counts, fill_s = by_size[size]
        base = statistics.median(results[0].samples)
        filled = f", filled in {fill_s:.0f} s" if fill_s is not None else " (reused store)"
        lines += [
            f"### {size:,} events{filled}",
            "",
            "Store: " + ", ".join(f"{v:,} {k}" for k, v in counts.items()) + ".",
            "",
            "| query | p50 ms | p95 ms | p50 / baseline | target p95 | cold first ms |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for r in results:
            target = TARGETS_MS.get(r.name)
            mark = ""
            if target is not None:
                mark = f"{target} {'✓' if r.pct(0.95) <= target else '✗'}"
            cold = f"{r.cold_ms:.1f}" if r.cold_ms is not None else ""
            lines.append(
                f"| {r.name} | {r.pct(0.5):.2f} | {r.pct(0.95):.2f} | "
                f"{r.pct(0.5) / base:.1f}x | {mark} | {cold} |"
            )
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.query", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seed", type=int, default=WorkloadConfig.seed)
    parser.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    parser.add_argument("--keep", action="store_true", help="keep the stores for the next run")
    parser.add_argument("--workload", choices=sorted(WORKLOADS), default="standard")
    parser.add_argument(
        "--fill-only",
        action="store_true",
        help="fill (or go on filling) the stores and keep them; measure nothing",
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="measure a kept store as it is, even if a stopped fill left it short of the size",
    )
    args = parser.parse_args(argv)
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",") if s]
    by_size: dict[int, tuple[list[Result], dict[str, int], float | None]] = {}
    for size in sizes:
        suffix = "" if args.workload == "standard" else f"-{args.workload}"
        repo = write_repo(args.data_dir / f"query{suffix}-{size}")
        (repo / "data").mkdir(exist_ok=True)
        fill_s: float | None = None
        stored = stored_events(repo)
        if args.fill_only:
            log(f"filling a store of {size:,} events from {stored:,}")
            fill_s = fill(repo, size, args.seed, args.workload, resume_from=stored)
            log(f"filled {size:,} events in {fill_s:.0f} s")
            continue
        if args.reuse and stored:
            size = stored
        elif stored != size:
            for p in (repo / "data").glob("lineage.db*"):
                p.unlink()
            log(f"filling a store of {size:,} events")
            fill_s = fill(repo, size, args.seed, args.workload)
        log(f"measuring {size:,} events")
        results, counts = run_size(
            repo, size, args.requests, args.seed, columns=args.workload == "columns"
        )
        by_size[size] = (results, counts, fill_s)
        for r in results:
            log(f"  {r.name}: p50 {r.pct(0.5):.2f} ms, p95 {r.pct(0.95):.2f} ms")
        if not (args.keep or args.reuse):
            shutil.rmtree(repo, ignore_errors=True)
    if args.fill_only:
        return 0
    command = "python -m bench.query " + " ".join(argv if argv is not None else sys.argv[1:])
    report = render(list(by_size), by_size, command.strip(), args.requests)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    (args.out_dir / f"query-{stamp}.md").write_text(report + "\n")
    print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
