"""An acknowledged event survives a crash of the server, exactly once.

Several clients stream events (single POSTs and small batches, half of them
gzip-encoded, which the writer thread parses itself) into the real
server on a SQLite file; the server is killed with SIGKILL mid-stream and
started again on the same file. Every event that got a 2xx must be stored,
once; events whose request failed may or may not be stored, but never twice.
With several worker processes, one worker is killed instead and the server
carries on.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from tests.factories import dataset, run_event
from tests.server_process import ServerProcess, children, lineage_server, wait_for, write_repo

CLIENTS = 4
# The kill comes once this many events are acknowledged (about half a second
# of traffic on a loaded 2-core machine), some of them in gzip batches that
# the writer parsed, while the clients keep sending.
ACKED_BEFORE_KILL = 200
KEY = "durability-key"  # pragma: allowlist secret
HEADERS = {"X-API-Key": KEY}


class Producer(threading.Thread):
    """Posts distinct events until the server goes away; records what was acknowledged."""

    def __init__(self, url: str, number: int) -> None:
        super().__init__(name=f"producer-{number}", daemon=True)
        self.url = url
        self.number = number
        self.sent: list[str] = []
        self.acked: list[str] = []
        self.acked_gzip = 0  # acknowledged gzip batches
        self.unexpected: list[str] = []
        self.stop = threading.Event()

    def events(self, count: int) -> list[dict[str, Any]]:
        out = []
        for _ in range(count):
            event = run_event(
                "COMPLETE",
                job=("durability", f"producer-{self.number}"),
                inputs=[dataset("s3://lake", f"in/{self.number}")],
                outputs=[dataset("s3://lake", f"out/{len(self.sent)}")],
            )
            out.append(event)
            self.sent.append(event["run"]["runId"])
        return out

    def run(self) -> None:
        with httpx.Client(base_url=self.url, headers=HEADERS, timeout=10) as client:
            for i in itertools.count():
                if self.stop.is_set():
                    return
                batch = i % 3 == 2
                events = self.events(3 if batch else 1)
                try:
                    if batch and i % 2:  # parsed by the writer (pipeline.submit_deferred)
                        response = client.post(
                            "/api/v1/lineage/batch",
                            content=gzip.compress(json.dumps(events).encode()),
                            headers={
                                "Content-Type": "application/json",
                                "Content-Encoding": "gzip",
                            },
                        )
                    elif batch:
                        response = client.post("/api/v1/lineage/batch", json=events)
                    else:
                        response = client.post("/api/v1/lineage", json=events[0])
                except httpx.HTTPError:
                    return  # the server is gone: nothing of this request is acknowledged
                if response.status_code in (201, 204):
                    self.acked += [e["run"]["runId"] for e in events]
                    if batch and i % 2:
                        self.acked_gzip += 1
                else:
                    self.unexpected.append(f"{response.status_code} {response.text[:200]}")


def stored_run_ids(server: ServerProcess) -> Counter[str]:
    counts: Counter[str] = Counter()
    offset = 0
    while True:
        page = httpx.get(
            server.url + "/api/v1/lineage/openlineage/events",
            params={"limit": 1000, "offset": offset},
            headers=HEADERS,
            timeout=30,
        )
        assert page.status_code == 200, page.text
        items = page.json()["events"]
        counts.update(item["run_id"] for item in items)
        offset += len(items)
        if len(items) < 1000:
            return counts


def traffic_flowing(producers: list[Producer]) -> bool:
    """More than ACKED_BEFORE_KILL events acknowledged, a gzip batch among them."""
    acked = sum(len(p.acked) for p in producers)
    return acked > ACKED_BEFORE_KILL and sum(p.acked_gzip for p in producers) > 0


def test_acknowledged_events_survive_sigkill_exactly_once(tmp_path: Path) -> None:
    repo = write_repo(
        tmp_path / "repo",
        consumer={"api_key": KEY, "connection_string": "sqlite:///data/lineage.db"},
    )
    with lineage_server(repo) as server:
        producers = [Producer(server.url, n) for n in range(CLIENTS)]
        for producer in producers:
            producer.start()
        assert wait_for(lambda: traffic_flowing(producers), timeout=120)
        server.kill()  # SIGKILL, mid-stream: no shutdown hook runs
        for producer in producers:
            producer.join(timeout=30)
            assert not producer.is_alive()
    assert (repo / "data" / "lineage.db").exists()

    acked = [run_id for p in producers for run_id in p.acked]
    sent = {run_id for p in producers for run_id in p.sent}
    assert all(not p.unexpected for p in producers), [p.unexpected for p in producers]
    assert len(acked) > 20, "too little traffic before the kill to test anything"
    assert sum(p.acked_gzip for p in producers) > 0
    assert len(sent) > len(acked) or all(p.acked == p.sent for p in producers)

    with lineage_server(repo) as restarted:
        stored = stored_run_ids(restarted)
        missing = [run_id for run_id in acked if stored[run_id] != 1]
        assert not missing, f"{len(missing)} acknowledged events lost or doubled"
        assert max(stored.values()) == 1, "an event was stored twice"
        assert set(stored) <= sent  # nothing appeared that was never sent
        # The restarted server works normally.
        event = run_event("START", job=("durability", "after-restart"))
        response = httpx.post(
            restarted.url + "/api/v1/lineage", json=event, headers=HEADERS, timeout=10
        )
        assert response.status_code == 201, response.text
        after = stored_run_ids(restarted)
        assert after[event["run"]["runId"]] == 1
        assert sum(after.values()) == sum(stored.values()) + 1


def test_a_killed_worker_loses_no_acknowledged_event(tmp_path: Path) -> None:
    repo = write_repo(
        tmp_path / "repo",
        consumer={"api_key": KEY, "connection_string": "sqlite:///data/lineage.db"},
    )
    with lineage_server(repo, extra_args=["--workers", "2"]) as server:
        # Both workers serving (each opens the Feast registry first): one is
        # killed, the other carries on.
        started = "Application startup complete"
        assert wait_for(lambda: server.log().count(started) == 2, timeout=300), server.log()
        producers = [Producer(server.url, n) for n in range(CLIENTS)]
        for producer in producers:
            producer.start()
        assert wait_for(lambda: traffic_flowing(producers), timeout=120)
        victim = children(server.process.pid)[0]
        os.kill(victim, signal.SIGKILL)  # mid-stream, with its requests in flight
        # The clients whose connection the victim held stop; the others go on
        # with the surviving worker (and its replacement) for as much again.
        before = sum(len(p.acked) for p in producers)
        wait_for(
            lambda: (
                all(not p.is_alive() for p in producers)
                or sum(len(p.acked) for p in producers) > before + ACKED_BEFORE_KILL
            ),
            timeout=120,
        )
        for producer in producers:
            producer.stop.set()
        for producer in producers:
            producer.join(timeout=30)
            assert not producer.is_alive()
        assert wait_for(lambda: len(children(server.process.pid)) == 2)

        acked = [run_id for p in producers for run_id in p.acked]
        sent = {run_id for p in producers for run_id in p.sent}
        assert all(not p.unexpected for p in producers), [p.unexpected for p in producers]
        assert len(acked) > 20, "too little traffic before the kill to test anything"
        stored = stored_run_ids(server)
        missing = [run_id for run_id in acked if stored[run_id] != 1]
        assert not missing, f"{len(missing)} acknowledged events lost or doubled"
        assert max(stored.values()) == 1, "an event was stored twice"
        assert set(stored) <= sent
