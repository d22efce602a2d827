"""Lineage health benchmark: ``/health``, ``/impact`` and the graph page with states.

In-process HTTP (the app through Starlette's TestClient, one connection, no
network) on a copy of a store, sequential requests, p50/p95 of each and the
ratio to ``GET /healthz`` measured in the same run:

* ``/health`` (50 problems) with the assessment reused (the store unchanged)
  and computed afresh on every request (what the first read after an ingest
  pays);
* ``/impact`` at depth 10 from random jobs and datasets;
* a graph page of 500 nodes at random offsets with states, and the same
  pages with the assessment replaced by an empty one ("without states"),
  interleaved so load drifts hit both alike.

    .venv/bin/python -m bench.health --store /path/to/lineage.db --rounds 40

The in-process client runs the app with the real server's garbage collector
settings (:func:`feast_lineage.server.tune_gc`: what a cold assessment pays
depends on them). The store is opened read-only in spirit (nothing is
ingested); copy and migrate a bench store first (docs/performance.md,
Lineage health).

``--http`` measures the real server instead: ``serve_lineage --workers 1``
on ``<repo>/data/lineage.db`` (``--store`` names that file; the repository's
``feature_store.yaml`` is written next to ``data/``), one persistent HTTP/1.1
connection, and ``/health`` cold as after a real ingest: each round POSTs
one small run event (a probe job in its own namespace) and then times the
first ``/health``. The store is written to: use a copy. The graph page
without states cannot be asked of a server, so ``--http`` reports the page
with states and its ratio to ``/healthz`` only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from bench.ingest import machine_details

API = "/api/v1/lineage/openlineage"
BENCH_DIR = Path(__file__).resolve().parent


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _time(client: TestClient, url: str, params: dict[str, Any] | None = None) -> float:
    started = time.perf_counter()
    response = client.get(url, params=params)
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, (url, params, response.text[:300])
    return elapsed


def _nodes(db: Path) -> tuple[list[tuple[str, str, str]], int]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        jobs = conn.execute("SELECT namespace, name FROM feast_lineage_jobs").fetchall()
        datasets = conn.execute("SELECT namespace, name FROM feast_lineage_datasets").fetchall()
    finally:
        conn.close()
    nodes = [("job", a, b) for a, b in jobs] + [("dataset", a, b) for a, b in datasets]
    return nodes, len(nodes)


def run(db: Path, rounds: int, seed: int) -> list[tuple[str, list[float]]]:
    from feast_lineage.config import ConsumerSettings
    from feast_lineage.consumer.app import create_app
    from feast_lineage.consumer.services import graph as graph_service
    from feast_lineage.consumer.services.health_cache import HealthCache
    from feast_lineage.consumer.services.health_states import Assessment
    from feast_lineage.consumer.settings import AppSettings
    from feast_lineage.server import tune_gc

    rng = random.Random(seed)
    nodes, total = _nodes(db)
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True), database_url=f"sqlite:///{db}", run_retention=False
    )
    timings: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        timings.setdefault(name, []).append(seconds)

    real_assess = graph_service.assess  # type: ignore[attr-defined]
    empty: Callable[..., Assessment] = lambda conn, rules, now_us, cache=None: Assessment(now_us)  # noqa: E731
    with TestClient(create_app(settings)) as client:
        tune_gc()  # as the server does once its app has started
        state = client.app.state.consumer  # type: ignore[attr-defined]
        client.get(f"{API}/health")  # warm: caches, the first assessment
        kept = state.health_cache
        for _ in range(rounds):
            add("healthz", _time(client, "/healthz"))
            add("/health (reused assessment)", _time(client, f"{API}/health"))
            state.health_cache = HealthCache()  # nothing kept: as after an ingest
            add("/health (computed afresh)", _time(client, f"{API}/health"))
            state.health_cache = kept
            kind, ns, name = rng.choice(nodes)
            params = {"node_type": kind, "namespace": ns, "name": name, "depth": 10}
            add("/impact depth 10", _time(client, f"{API}/impact", params))
            page = {"limit": 500, "offset": rng.randrange(0, max(1, total - 500))}
            client.get(f"{API}/graph", params=page)  # both on a warm page, in turns first
            for states in (True, False) if len(timings["healthz"]) % 2 else (False, True):
                graph_service.assess = real_assess if states else empty  # type: ignore[attr-defined]
                try:
                    name = "graph page 500, " + ("with" if states else "without") + " states"
                    add(name, _time(client, f"{API}/graph", page))
                finally:
                    graph_service.assess = real_assess  # type: ignore[attr-defined]
    return list(timings.items())


def _probe_event(round_no: int) -> bytes:
    now = datetime.now(tz=UTC).isoformat().replace("+00:00", "Z")
    event = {
        "eventType": "COMPLETE",
        "eventTime": now,
        "producer": "https://example.com/bench-health",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": str(uuid.UUID(int=random.getrandbits(128), version=4))},
        "job": {"namespace": "bench-health-probe", "name": f"probe-{round_no % 5}"},
        "inputs": [],
        "outputs": [{"namespace": "bench-health-probe", "name": f"probe-out-{round_no % 5}"}],
    }
    return json.dumps(event).encode()


def run_http(db: Path, rounds: int, seed: int) -> list[tuple[str, list[float]]]:
    """The same requests of the real server process over HTTP (``--http``)."""
    from bench.ingest import HOST, HttpClient, free_port, lineage_cmd, start_server, write_repo

    rng = random.Random(seed)
    nodes, total = _nodes(db)
    repo = db.parent.parent
    assert db == repo / "data" / "lineage.db", "--http wants <repo>/data/lineage.db"
    write_repo(repo)
    server = start_server(
        "lineage server", lineage_cmd(repo, 1, free_port()), repo / "server.log", {}
    )
    client = HttpClient(HOST, server.port)
    timings: dict[str, list[float]] = {}

    def get(name: str, url: str, params: dict[str, Any] | None = None) -> None:
        path = f"{url}?{urllib.parse.urlencode(params)}" if params else url
        started = time.perf_counter()
        status, body = client.request(client.head("GET", path, 0))
        timings.setdefault(name, []).append(time.perf_counter() - started)
        assert status == 200, (path, status, body[:300])

    try:
        get("warm-up", f"{API}/health")
        for round_no in range(rounds):
            get("healthz", "/healthz")
            get("/health (reused assessment)", f"{API}/health")
            body = _probe_event(round_no)
            status, answer = client.request(client.head("POST", "/api/v1/lineage", len(body)), body)
            assert status < 300, (status, answer[:300])
            get("/health (first after an ingest)", f"{API}/health")
            kind, ns, name = rng.choice(nodes)
            params = {"node_type": kind, "namespace": ns, "name": name, "depth": 10}
            get("/impact depth 10", f"{API}/impact", params)
            page = {"limit": 500, "offset": rng.randrange(0, max(1, total - 500))}
            get("graph page 500, with states", f"{API}/graph", page)
    finally:
        client.close()
        server.stop()
    del timings["warm-up"]
    return list(timings.items())


def report(
    results: list[tuple[str, list[float]]], db: Path, rounds: int, http: bool = False
) -> str:
    base = statistics.median(dict(results)["healthz"])
    lines = [
        f"# Lineage health benchmark, {datetime.now(tz=UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"Store: {db} ({db.stat().st_size / 1e9:.1f} GB); {rounds} rounds; "
        + (
            "the real server (serve_lineage --workers 1) over HTTP, one connection."
            if http
            else "in-process HTTP (TestClient), the server's gc settings."
        ),
        f"Load average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        "",
        *[f"- {k}: {v}" for k, v in machine_details()],
        "",
        "| request | p50 ms | p95 ms | p50 / healthz p50 |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, values in results:
        p50 = statistics.median(values)
        lines.append(f"| {name} | {p50 * 1000:.1f} | {_p(values, 0.95):.1f} | {p50 / base:.1f} |")
    if not http:
        with_states = dict(results)["graph page 500, with states"]
        without = dict(results)["graph page 500, without states"]
        ratio = statistics.median(with_states) / statistics.median(without)
        lines += ["", f"Graph page with states / without (p50): {ratio:.3f}"]
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--store", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--http", action="store_true", help="the real server over HTTP")
    args = parser.parse_args()
    measure = run_http if args.http else run
    text = report(measure(args.store, args.rounds, args.seed), args.store, args.rounds, args.http)
    mode = "http" if args.http else "inprocess"
    out = BENCH_DIR / "results" / f"health-{mode}-{datetime.now(tz=UTC):%Y%m%d-%H%M%S}.md"
    out.write_text(text)
    print(text)
    print(f"written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
