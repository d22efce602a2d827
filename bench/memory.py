"""Peak memory of one lineage worker under the largest bodies it accepts.

The worst cases of issue 34: batches near the body size limit (32 MiB),
either of about 2,000 large events (31.5 MiB, two 110-field schemas each)
or of 10,000 small ones (26 MB), sent by 4 clients at once to one
``serve_lineage --workers 1`` process (a pod of the Kubernetes Deployment).

For each kind of batch, on a fresh server and store:

1. the idle worker's RSS after a warm-up (a few small events): the baseline
   of the run, which every figure is also given as a ratio to;
2. **one body** alone: the worker's peak RSS (``VmHWM``) over the idle RSS,
   divided by the body's size, is the *expansion*: the memory a byte of
   body costs while it is parsed, derived and stored;
3. **4 at once**: 4 client threads send one batch each (a 503 is retried
   after its ``Retry-After``, as the OpenLineage client does); the peak RSS
   against the formula ``idle + expansion × max(budget, max_request_bytes)``
   and against the memory limit;
4. the RSS 3 s after the last answer: what the worker keeps after a spike.

The budget is what ``body_budget_bytes`` sizes from a container memory limit
of ``--memory-limit`` (512 MiB, as deploy/kubernetes/base/deployment.yaml),
given to the server as ``body_budget_bytes``; ``--budget none`` leaves the
option out (a server without it, such as an older one, uses its default).

    .venv/bin/python -m bench.memory                  # about 3 minutes
    .venv/bin/python -m bench.memory --scale 0.25     # a quick check

It prints a table and writes ``bench/results/memory-<time>.md``.
"""

from __future__ import annotations

import argparse
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import orjson
import yaml

from bench.ingest import BENCH_DIR, Server, free_port, lineage_cmd, machine_details, start_server
from feast_lineage.consumer.intake.memory import body_budget_bytes, peak_bytes

MiB = 1024 * 1024
MAX_REQUEST_BYTES = 32 * MiB
PRODUCER = "https://github.com/feast-lineage/bench/memory"
SCHEMA_URL = "https://openlineage.io/spec/2-0-2/OpenLineage.json#/definitions/RunEvent"


def _event(i: int, salt: str, fields: int) -> dict[str, Any]:
    def schema(prefix: str) -> dict[str, Any]:
        return {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
            "fields": [
                {"name": f"{prefix}_{j}", "type": "BIGINT", "description": f"column {j} of {i}"}
                for j in range(fields)
            ],
        }

    return {
        "eventType": "COMPLETE",
        "eventTime": datetime.now(tz=UTC).isoformat(),
        "run": {"runId": str(uuid.uuid4())},
        "job": {"namespace": "spark://bench", "name": f"job.{salt}.{i % 500}"},
        "inputs": [
            {"namespace": "s3://lake", "name": f"in/{salt}/{i}", "facets": {"schema": schema("c")}}
        ],
        "outputs": [
            {"namespace": "s3://lake", "name": f"out/{salt}/{i}", "facets": {"schema": schema("d")}}
        ],
        "producer": PRODUCER,
        "schemaURL": SCHEMA_URL,
    }


@dataclass(frozen=True)
class Kind:
    name: str
    events: int
    fields: int  # per schema: sets each event's size

    def body(self, salt: str, scale: float) -> bytes:
        count = max(1, int(self.events * scale))
        return orjson.dumps([_event(i, salt, self.fields) for i in range(count)])


KINDS = {
    # about 2,000 events of 16 KB: 31.5 MiB
    "large-events": Kind("large-events", 2000, 118),
    # 10,000 events of 2.6 KB: 26 MB
    "small-events": Kind("small-events", 10_000, 13),
}


def status_kb(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {key} for process {pid}")


def rss_mb(pid: int) -> float:
    return status_kb(pid, "VmRSS") / 1024


def reset_peak(pid: int) -> None:
    """Start VmHWM again from the current RSS (Linux 4.0+: write 5 to clear_refs)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def post_until_taken(url: str, body: bytes, tries: int = 120) -> tuple[int, int]:
    """POST a batch, retrying 503 as the OpenLineage client does; (status, 503s met)."""
    busy = 0
    with httpx.Client(timeout=300) as client:
        for _ in range(tries):
            answer = client.post(
                url + "/api/v1/lineage/batch",
                content=body,
                headers={"Content-Type": "application/json"},
            )
            if answer.status_code != 503:
                return answer.status_code, busy
            busy += 1
            time.sleep(float(answer.headers.get("Retry-After", "1")))
    return 503, busy


def concurrently(calls: list[Callable[[], tuple[int, int]]]) -> list[tuple[int, int]]:
    results: list[tuple[int, int]] = [(0, 0)] * len(calls)

    def run(i: int) -> None:
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def write_repo(repo: Path, budget: int | None) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    consumer: dict[str, Any] = {
        "enabled": True,
        "connection_string": "sqlite:///data/lineage.db",
        "max_request_bytes": MAX_REQUEST_BYTES,
    }
    if budget is not None:
        consumer["body_budget_bytes"] = budget
    config = {
        "project": "bench",
        "registry": {"registry_type": "sql", "path": "sqlite:///data/registry.db"},
        "provider": "local",
        "online_store": {"type": "sqlite", "path": "data/online.db"},
        "entity_key_serialization_version": 3,
        "openlineage": {"consumer": consumer},
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return repo


@dataclass
class Case:
    kind: str
    body_mb: float
    idle_mb: float
    one_peak_mb: float
    expansion: float
    four_peak_mb: float
    after_mb: float
    statuses: list[int]
    busy: int

    def ratio(self, mb: float) -> float:
        return mb / self.idle_mb


def measure(kind: Kind, budget: int | None, scale: float, workdir: Path) -> Case:
    repo = write_repo(workdir / kind.name, budget)
    port = free_port()
    server: Server = start_server(
        kind.name, lineage_cmd(repo, 1, port), workdir / f"{kind.name}.log", {}
    )
    url = f"http://127.0.0.1:{port}"
    try:
        pid = server.pid
        for i in range(3):  # warm-up: every code path of ingest once
            warm = orjson.dumps([_event(j, f"warm{i}", 4) for j in range(50)])
            assert post_until_taken(url, warm)[0] == 204
        time.sleep(1)
        idle = rss_mb(pid)
        one = kind.body("one", scale)
        reset_peak(pid)
        status, _ = post_until_taken(url, one)
        assert status == 204, status
        one_peak = status_kb(pid, "VmHWM") / 1024
        expansion = (one_peak - idle) * MiB / len(one)
        time.sleep(1)
        bodies = [kind.body(f"four{i}", scale) for i in range(4)]
        reset_peak(pid)
        results = concurrently([partial(post_until_taken, url, b) for b in bodies])
        four_peak = status_kb(pid, "VmHWM") / 1024
        time.sleep(3)
        after = rss_mb(pid)
    finally:
        server.stop()
    return Case(
        kind.name,
        len(one) / MiB,
        idle,
        one_peak,
        expansion,
        four_peak,
        after,
        [s for s, _ in results],
        sum(b for _, b in results),
    )


def report(cases: list[Case], budget: int | None, limit_mb: int, scale: float) -> str:
    held = max(budget or 4 * MAX_REQUEST_BYTES, MAX_REQUEST_BYTES) / MiB
    lines = [
        f"# Peak memory of one worker: {datetime.now(tz=UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"`serve_lineage --workers 1` on SQLite; max_request_bytes {MAX_REQUEST_BYTES // MiB} MiB; "
        + (
            f"body_budget_bytes {budget / MiB:.1f} MiB (sized from a {limit_mb} MiB limit)"
            if budget
            else "body_budget_bytes not set (the server's default)"
        )
        + f"; scale {scale:g}. At most {held:.1f} MiB of bodies held at once.",
        "",
        "| batches | body | idle RSS | one body: peak | expansion | 4 at once: peak "
        "| formula | limit | 3 s later | answers | 503s retried |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for c in cases:
        formula = peak_bytes(int(held * MiB)) / MiB
        lines.append(
            f"| {c.kind} | {c.body_mb:.1f} MiB | {c.idle_mb:.0f} MiB "
            f"| {c.one_peak_mb:.0f} MiB ({c.ratio(c.one_peak_mb):.2f}×) | {c.expansion:.2f} "
            f"| {c.four_peak_mb:.0f} MiB ({c.ratio(c.four_peak_mb):.2f}×) "
            f"| {formula:.0f} MiB | {limit_mb} MiB "
            f"| {c.after_mb:.0f} MiB ({c.ratio(c.after_mb):.2f}×) "
            f"| {', '.join(map(str, c.statuses))} | {c.busy} |"
        )
    lines += [
        "",
        "Ratios are to the idle RSS of the same server, measured in the same run. "
        "Expansion: (one body's peak − idle) / body size. Formula: the stated peak, "
        "BASELINE_BYTES + EXPANSION × the most bytes of bodies held at once "
        "(feast_lineage/consumer/intake/memory.py).",
        "",
        "## Machine",
        "",
        *(f"- {key}: {value}" for key, value in machine_details()),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kinds", default=",".join(KINDS), help="large-events,small-events")
    parser.add_argument("--memory-limit", type=int, default=512, help="MiB (default 512)")
    parser.add_argument("--budget", default="limit", help="'limit' (sized from it) or 'none'")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of each batch")
    parser.add_argument("--keep", action="store_true", help="keep the stores and logs")
    args = parser.parse_args()
    budget = (
        body_budget_bytes(MAX_REQUEST_BYTES, memory_limit=args.memory_limit * MiB)
        if args.budget == "limit"
        else None
    )
    stamp = f"{datetime.now(tz=UTC):%Y%m%d-%H%M%S}"
    workdir = BENCH_DIR / "data" / f"memory-{stamp}"
    workdir.mkdir(parents=True)
    try:
        cases = [measure(KINDS[k], budget, args.scale, workdir) for k in args.kinds.split(",") if k]
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    text = report(cases, budget, args.memory_limit, args.scale)
    print(text)
    out = BENCH_DIR / "results" / f"memory-{stamp}.md"
    out.write_text(text)
    print(f"written to {out}")


if __name__ == "__main__":
    main()
