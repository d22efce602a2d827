"""The lineage as of an instant and over a window, over HTTP, beside the current graph (issue 39).

On a store filled with the history workload (``python -m bench.query
--workload history --sizes 1000000 --fill-only``: jobs whose inputs and
outputs change over time, so ``as_of`` answers differ by instant), one
``serve_lineage`` process of this checkout answers, interleaved by rounds:

* ``GET /healthz``, the baseline every figure is a ratio to;
* the current graph: subgraph depth 3 of random jobs and datasets, and a
  graph page of 500 nodes at a random offset;
* ``as_of`` a random instant in the store's span: subgraph depth 3 and the
  graph page of 500 nodes;
* a one-week window ending at a random instant: subgraph depth 3;
* column lineage of one field, depth 5, ``as_of`` (``--columns``: fields
  that have column lineage in the store, e.g. one filled by
  :mod:`bench.column_history`, each at a random instant after its dataset
  first stated column lineage and in the later three quarters of the span);
* the diff (``/lineage/diff``, issue 40) between two random instants of
  the subgraph depth 3 around a random center, and of the whole graph
  between two instants a week apart (one request in ``--whole-every``).

Beside each query's wall time, the server's CPU time (its processes'
utime and stime from ``/proc``, 10 ms ticks, averaged over the requests):
what the code costs, less moved by the other processes of a loaded machine.

With ``--before`` (a checkout of the commit before issue 39, with its own
``.venv``) a second server of that code answers the current-graph requests
(and ``/healthz``; every query with ``--before-history``, for a before
that answers them too) on the same store in the same rounds, so the current
graph's cost before and after is a same-run ratio. It serves a copy of the
store (``--before-repo``: a store has one writer), whose schema must be its
own (the store is only read). A subgraph whose center did not exist at
the instant answers 404: those are counted and left out of the timings.

Not part of the test suite; no timed assertions. Run from the repository
root::

    .venv/bin/python -m bench.history --repo /path/to/query-history-1000000 \\
        --before /work/wt-before --before-repo /path/to/a-copy --rounds 3 --requests 60
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

import httpx

from bench.ingest import Server, _proc_cpu_seconds, free_port, lineage_cmd, machine_details
from bench.query import API, column_targets, every
from feast_lineage.event_time import SORT_OFFSET

WEEK_US = 7 * 86_400 * 1_000_000
KEEP_ALL = {"FEAST_OPENLINEAGE_CONSUMER_RETENTION_DAYS": "0"}


@dataclass
class Series:
    """One query's samples (ms) by round, and how many answered 404."""

    samples: dict[int, list[float]] = field(default_factory=dict)
    missing: int = 0
    cpu_s: float = 0.0  # the server's CPU seconds over the answered requests

    def cpu_ms(self) -> float:
        n = len(self.all())
        return 1000 * self.cpu_s / n if n else 0.0

    def all(self) -> list[float]:
        return [s for values in self.samples.values() for s in values]


def _pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] if ordered else 0.0


def _iso(us: int) -> str:
    return datetime.fromtimestamp(us / 1e6, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _span(repo: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"file:{repo / 'data' / 'lineage.db'}?mode=ro", uri=True)
    try:
        low, high = conn.execute(
            "SELECT min(started_us), max(last_event_us) FROM feast_lineage_runs"
        ).fetchone()
    finally:
        conn.close()
    return int(low), int(high)


def _column_fields(repo: Path) -> list[tuple[str, str, str, int]]:
    """The fields with column lineage, each with when its dataset first stated some (us)."""
    fields = column_targets(repo)[0]
    conn = sqlite3.connect(f"file:{repo / 'data' / 'lineage.db'}?mode=ro", uri=True)
    try:
        first = {
            (ns, name): int(rank[:20]) - SORT_OFFSET
            for ns, name, rank in conn.execute(
                "SELECT d.namespace, d.name, min(l.rank) FROM feast_lineage_column_listings l"
                " JOIN feast_lineage_datasets d ON d.id = l.dataset_id GROUP BY d.id"
            )
        }
    finally:
        conn.close()
    return [(ns, name, f, first[(ns, name)]) for ns, name, f in fields if (ns, name) in first]


def _cpu(pid: int) -> float:
    return sum((_proc_cpu_seconds(pid) or {}).values())


def _get(client: httpx.Client, url: str, series: Series, round_no: int, pid: int) -> None:
    cpu = _cpu(pid)
    started = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - started) * 1000
    if response.status_code == 404:
        series.missing += 1
        return
    if response.status_code != 200:
        raise RuntimeError(f"{url}: {response.status_code} {response.text[:300]}")
    series.cpu_s += _cpu(pid) - cpu
    series.samples.setdefault(round_no, []).append(elapsed)


def _node_params(center: tuple[str, str, str]) -> str:
    kind, namespace, name = center
    return f"node_type={kind}&namespace={quote(namespace, safe='')}&name={quote(name, safe='')}"


@dataclass(frozen=True)
class Asked:
    """What the rounds draw from: centers (as URLs and as nodes), fields with column lineage."""

    centers: list[str]
    nodes: list[tuple[str, str, str]]
    fields: list[tuple[str, str, str, int]]  # and when its dataset first had column lineage
    whole_every: int


def _urls(
    rng: random.Random, asked: Asked, nodes: int, span: tuple[int, int], n: int
) -> dict[str, list[str]]:
    low, high = span
    centers = asked.centers
    # Instants in the later three quarters of the span: most centers existed by then.
    instants = [low + int((high - low) * (0.25 + 0.75 * rng.random())) for _ in range(n)]
    earlier = [low + int((t - low) * rng.random()) for t in instants]
    diff = f"{API}/lineage/diff"
    extra: dict[str, list[str]] = {
        "diff depth 3": [
            f"{diff}?{_node_params(rng.choice(asked.nodes))}&depth=3"
            f"&from={quote(_iso(t1))}&to={quote(_iso(t2))}"
            for t1, t2 in zip(earlier, instants, strict=True)
        ],
        "diff whole graph, a week apart": [
            f"{diff}?from={quote(_iso(t - WEEK_US))}&to={quote(_iso(t))}" for t in instants
        ],
    }
    if asked.fields:
        # An instant after the field's dataset first stated column lineage: a
        # field asked before it has any answers 404 or nothing to walk.
        picked = [rng.choice(asked.fields) for _ in range(n)]
        extra["column lineage one field depth 5 as_of"] = [
            f"{API}/datasets/{quote(ns, safe='')}/{quote(name, safe='')}/columns"
            f"?field={quote(f)}&depth=5"
            f"&as_of={quote(_iso(since + int((high - since) * rng.random())))}"
            for ns, name, f, since in ((*p[:3], max(p[3], low + (high - low) // 4)) for p in picked)
        ]
    page = [f"{API}/graph?limit=500&offset={rng.randrange(max(nodes - 500, 1))}" for _ in range(n)]
    sub = [f"{c}?depth=3" for c in (rng.choice(centers) for _ in range(n))]
    return {
        "GET /healthz": ["/healthz"] * n,
        "subgraph depth 3 (now)": sub,
        "graph page 500 (now)": page,
        "subgraph depth 3 as_of": [
            f"{rng.choice(centers)}?depth=3&as_of={quote(_iso(t))}" for t in instants
        ],
        "graph page 500 as_of": [
            f"{u}&as_of={quote(_iso(t))}" for u, t in zip(page, instants, strict=True)
        ],
        "subgraph depth 3, one-week window": [
            f"{rng.choice(centers)}?depth=3&since={quote(_iso(t - WEEK_US))}&until={quote(_iso(t))}"
            for t in instants
        ],
        **extra,
    }


CURRENT = ("GET /healthz", "subgraph depth 3 (now)", "graph page 500 (now)")


def _centers(client: httpx.Client) -> tuple[list[str], list[tuple[str, str, str]], int]:
    jobs = every(client, "/jobs")
    datasets = every(client, "/datasets")
    as_nodes = [("job", j["job_namespace"], j["job_name"]) for j in jobs] + [
        ("dataset", d["dataset_namespace"], d["dataset_name"]) for d in datasets
    ]
    centers = [
        f"{API}/graph/job/{quote(j['job_namespace'], safe='')}/{quote(j['job_name'], safe='')}"
        for j in jobs
    ] + [
        f"{API}/graph/dataset/{quote(d['dataset_namespace'], safe='')}/"
        f"{quote(d['dataset_name'], safe='')}"
        for d in datasets
    ]
    nodes = client.get(f"{API}/graph", params={"limit": 1}).json()["total_nodes"]
    return centers, as_nodes, nodes


def _start(name: str, python_dir: Path, repo: Path) -> Server:
    """A ``serve_lineage`` of the code in ``python_dir``'s environment, once it answers.

    Ready when ``/readyz`` answers 200 (the schema checked), or 404: the
    commit before issue 39 has no ``/readyz``.
    """
    port = free_port()
    cmd = lineage_cmd(repo, 1, port)
    cmd[0] = str(python_dir / "feast-lineage")
    log = repo / f"server-{name}-{port}.log"
    with open(log, "ab") as out:
        process = subprocess.Popen(
            cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **KEEP_ALL}
        )
    server = Server(name, process, port, log, None)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        try:
            ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2).status_code
            if ready in (200, 404):  # 404: a commit without /readyz, ready once it answers
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop(timeout=10)
    raise RuntimeError(f"{name} did not answer /healthz; log:\n{server.log_tail()}")


def _report(results: dict[str, dict[str, Series]], rounds: int) -> list[str]:
    lines = [
        "| arm | query | n | p50 ms | p95 ms | p50 ÷ healthz (median of rounds) | server CPU ms "
        "mean | 404s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for arm, by_query in results.items():
        base = by_query["GET /healthz"]
        for name, series in by_query.items():
            ratios = [
                statistics.median(series.samples[r]) / statistics.median(base.samples[r])
                for r in range(rounds)
                if series.samples.get(r) and base.samples.get(r)
            ]
            ratio = f"{statistics.median(ratios):.2f}" if ratios else "n/a"
            values = series.all()
            lines.append(
                f"| {arm} | {name} | {len(values)} | {_pct(values, 0.5):.2f} "
                f"| {_pct(values, 0.95):.2f} | {ratio} | {series.cpu_ms():.1f} | {series.missing} |"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.history")
    parser.add_argument("--repo", type=Path, required=True)
    parser.add_argument("--before", type=Path, help="a checkout of the commit before issue 39")
    parser.add_argument(
        "--before-repo",
        type=Path,
        help="a copy of --repo for the before server (one store has one writer)",
    )
    parser.add_argument(
        "--before-history",
        action="store_true",
        help="the before checkout answers as_of and windows too (a commit of issue 39)",
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=60)
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--columns", action="store_true", help="column lineage as_of too")
    parser.add_argument(
        "--whole-every", type=int, default=5, help="one whole-graph diff per this many requests"
    )
    parser.add_argument(
        "--only", help="the queries to ask (comma-separated substrings of their names)"
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    servers: dict[str, Server] = {}
    clients: dict[str, httpx.Client] = {}
    results: dict[str, dict[str, Series]] = {"after": {}}
    try:
        servers["after"] = _start("after", Path(sys.executable).parent, args.repo)
        if args.before is not None:
            repo = args.before_repo or args.repo
            servers["before"] = _start("before", args.before / ".venv" / "bin", repo)
            results["before"] = {}
        for arm, server in servers.items():
            clients[arm] = httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=120)
        centers, as_nodes, nodes = _centers(clients["after"])
        fields = _column_fields(args.repo) if args.columns else []
        asked = Asked(centers, as_nodes, fields, args.whole_every)
        span = _span(args.repo)
        for client in clients.values():  # warm both: caches, pages of the file
            for _ in range(20):
                client.get("/healthz")
            for url in _urls(rng, asked, nodes, span, 10)["subgraph depth 3 (now)"]:
                client.get(url)
        for round_no in range(args.rounds):
            urls = _urls(rng, asked, nodes, span, args.requests)
            wanted = [w for w in (args.only or "").split(",") if w]
            for name in list(urls):
                if name != "GET /healthz" and wanted and not any(w in name for w in wanted):
                    del urls[name]
            for i in range(args.requests):  # interleaved request by request
                for arm, client in clients.items():
                    for name, batch in urls.items():
                        if name.startswith("diff whole") and i % asked.whole_every:
                            continue
                        if arm == "after" or name in CURRENT or args.before_history:
                            series = results[arm].setdefault(name, Series())
                            _get(client, batch[i], series, round_no, servers[arm].pid)
            print(f"round {round_no + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    finally:
        for client in clients.values():
            client.close()
        for server in servers.values():
            server.stop(timeout=30)
    low, high = span
    head = [
        f"# History queries over HTTP ({datetime.now(UTC):%Y-%m-%d %H:%M} UTC)",
        "",
        f"Store: {args.repo} ({nodes:,} nodes, {len(centers):,} centers, events "
        f"{_iso(low)} to {_iso(high)}); {args.rounds} rounds of {args.requests} requests "
        "per query, interleaved request by request.",
        "",
        "; ".join(f"{k}: {v}" for k, v in machine_details()),
        "",
    ]
    text = "\n".join([*head, *_report(results, args.rounds), ""])
    print(text)
    if args.out is not None:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
