"""The floor of the ingest benchmark: the least a durable ingest endpoint does.

Like :mod:`bench.bare_app` it runs on the lineage server's runner, with the
same worker processes and settings. Unlike it, it keeps what it acknowledges,
under the same rules as the lineage server, and does nothing else:

* it parses the body with orjson and checks each event with the lineage
  server's own validation (a bad event must get its 400 before anything is
  acknowledged);
* it hands the events' JSON to one writer thread per worker, off the event
  loop (ingest must never block it), which commits every event waiting in
  one transaction (group commit);
* it answers 201 (one event) or 204 (a batch) after the commit.

The store is one append-only table per worker process, in its own SQLite
file (WAL, ``synchronous=NORMAL``, as the lineage store), so the workers
never wait for each other: no store holding lineage can do less. No lineage
is derived, no index is kept, nothing is deduplicated.

The ratio of the lineage server's throughput to this one's tells how much
the lineage work costs beyond storing each event durably at all; the ratio of
this one's to :mod:`bench.bare_app`'s, what durability alone costs.

    python -m bench.floor_app --port 6591 --dir /tmp/floor
"""

from __future__ import annotations

import argparse
import asyncio
import os
import queue
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import orjson
from fastapi import FastAPI, Request, Response

from feast_lineage.consumer.intake.problems import InvalidEvent
from feast_lineage.consumer.intake.validation import validate_event
from feast_lineage.server import serve

_CREATED = orjson.dumps({"status": "created"})

Pending = tuple[list[bytes], asyncio.Future[None]]


class GroupWriter(threading.Thread):
    """Commits whatever events are waiting, in one transaction, then wakes their requests."""

    def __init__(self, path: Path, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(name="floor-writer", daemon=True)
        self.path = path
        self.loop = loop
        self.waiting: queue.SimpleQueue[Pending | None] = queue.SimpleQueue()

    def run(self) -> None:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, payload BLOB)")
        while True:
            first = self.waiting.get()
            if first is None:
                break
            group = [first]
            while True:
                try:
                    item = self.waiting.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    self.waiting.put(None)
                    break
                group.append(item)
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "INSERT INTO events (payload) VALUES (?)",
                [(payload,) for payloads, _ in group for payload in payloads],
            )
            conn.execute("COMMIT")
            for _, done in group:
                self.loop.call_soon_threadsafe(_finish, done)
        conn.close()

    async def store(self, payloads: list[bytes]) -> None:
        done: asyncio.Future[None] = self.loop.create_future()
        self.waiting.put((payloads, done))
        await done


def _finish(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)


def _invalid(err: InvalidEvent) -> Response:
    problems = [{"path": p.path, "message": p.message} for p in err.problems]
    return Response(orjson.dumps({"problems": problems}), status_code=400)


def create_app(store_dir: Path) -> FastAPI:
    writer: dict[str, GroupWriter] = {}

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        w = GroupWriter(store_dir / f"floor-{os.getpid()}.db", asyncio.get_running_loop())
        w.start()
        writer["w"] = w
        yield
        w.waiting.put(None)
        w.join(timeout=10)

    app = FastAPI(title="durable ingest floor", lifespan=lifespan)

    @app.get("/healthz")
    @app.get("/readyz")  # what bench.ingest waits on, as for the lineage server
    async def healthz() -> Response:
        return Response(b'{"status":"ok"}', media_type="application/json")

    @app.post("/api/v1/lineage")
    async def lineage(request: Request) -> Response:
        data = await request.body()
        event: Any = orjson.loads(data)
        if not isinstance(event, dict):
            return Response(status_code=400)
        try:
            validate_event(event)
        except InvalidEvent as err:
            return _invalid(err)
        await writer["w"].store([data])
        return Response(_CREATED, status_code=201, media_type="application/json")

    @app.post("/api/v1/lineage/batch")
    async def batch(request: Request) -> Response:
        events: Any = orjson.loads(await request.body())
        if not isinstance(events, list):
            return Response(status_code=400)
        try:
            for event in events:
                validate_event(event)
        except InvalidEvent as err:
            return _invalid(err)
        await writer["w"].store([orjson.dumps(event) for event in events])
        return Response(status_code=204)

    return app


def factory(store_dir: Path) -> Callable[[], FastAPI]:
    return lambda: create_app(store_dir)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--dir", type=Path, required=True, help="where the stores go")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--port", type=int, default=6591)
    args = parser.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    serve(
        factory(args.dir),
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="warning",
    )


if __name__ == "__main__":
    main()
