"""The baseline of the ingest benchmark: a bare FastAPI endpoint.

It reads the request body, parses it with orjson and answers 201 (one event
on ``/api/v1/lineage``) or 204 (``/api/v1/lineage/batch``), stores nothing.
It runs on the lineage server's runner (:func:`feast_lineage.server.serve`:
uvicorn with uvloop and httptools, no access log, as many worker processes
as the lineage server, the same GC tuning), so the
ratio of the lineage server's throughput to this one's tells how much the
lineage work costs on top of HTTP and JSON, whatever the machine.

    python -m bench.bare_app --port 6590
"""

from __future__ import annotations

import argparse

import orjson
from fastapi import FastAPI, Request, Response

from feast_lineage.server import serve

app = FastAPI(title="bare ingest baseline")

_CREATED = orjson.dumps({"status": "created"})


@app.get("/healthz")
@app.get("/readyz")  # what bench.ingest waits on, as for the lineage server
async def healthz() -> Response:
    return Response(b'{"status":"ok"}', media_type="application/json")


@app.post("/api/v1/lineage")
async def lineage(request: Request) -> Response:
    body = orjson.loads(await request.body())
    if not isinstance(body, dict | list):
        return Response(status_code=400)
    return Response(_CREATED, status_code=201, media_type="application/json")


@app.post("/api/v1/lineage/batch")
async def batch(request: Request) -> Response:
    body = orjson.loads(await request.body())
    if not isinstance(body, list):
        return Response(status_code=400)
    return Response(status_code=204)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6590)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    # The lineage server's own runner: the same uvicorn settings, worker
    # processes, connection balancing and GC tuning.
    serve(lambda: app, host=args.host, port=args.port, workers=args.workers, log_level="warning")


if __name__ == "__main__":
    main()
