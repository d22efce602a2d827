"""Connection balancing between worker processes, in one process.

That it spreads real keep-alive clients over real workers is tested in
tests/test_workers.py.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.testclient import TestClient

from feast_lineage.balance import BalanceConnections, WorkerLoad


def test_worker_load_counts_requests_in_flight_against_the_least_busy_other() -> None:
    load = WorkerLoad(3)
    assert load.slots == 3
    load.become(1)
    assert load.excess() == 0
    load.enter()
    load.enter()
    assert load.excess() == 2
    load.leave()
    assert load.excess() == 1
    single = WorkerLoad(1)
    single.enter()
    assert single.excess() == 0  # nobody to hand connections to


def test_a_busy_worker_closes_keep_alive_connections_and_an_even_one_keeps_them() -> None:
    app = FastAPI()

    @app.get("/ping")
    async def ping() -> dict[str, str]:
        return {"ok": "yes"}

    load = WorkerLoad(2)
    load.become(0)
    client = TestClient(BalanceConnections(app, load))
    even = client.get("/ping")
    assert even.status_code == 200
    assert even.json() == {"ok": "yes"}
    assert "close" not in even.headers.get("connection", "")
    load.enter()  # another request in flight here, none on the other worker
    busy = client.get("/ping")
    assert busy.status_code == 200
    assert busy.headers["connection"] == "close"
    load.leave()
    assert "close" not in client.get("/ping").headers.get("connection", "")
