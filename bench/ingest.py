"""Ingest benchmark: the real lineage server against a bare FastAPI endpoint.

For each store size it creates a fresh feature repository with a SQLite
lineage store under bench/data/, starts the real server process
(``feast-lineage serve_lineage``), fills the store to the size with batches
of 100 events from :mod:`bench.workload`, and snapshots the store. Then it
measures, on that same starting store each time (the snapshot is restored
between the two, and every copy is flushed to disk before anything is
measured, so the kernel's writeback of a 2.2 GB copy does not run during a
phase):

* single-event ``POST /api/v1/lineage`` from 4 client threads;
* batches of 100 events ``POST /api/v1/lineage/batch`` from 2 client threads.

Right before each of those it measures the bare endpoint of
:mod:`bench.bare_app` (orjson parse only, same uvicorn settings) with the
same client, bodies and threads, and reports the lineage server's figure as a
ratio to it: the machine is shared and noisy, the ratio much less so. Then,
with the same bodies, it measures the floor of :mod:`bench.floor_app`: an
endpoint that validates each event and commits it, off the event loop, to an
append-only SQLite table, and does nothing else. Its figure bounds what any
durable ingest on this machine and stack can reach, so the lineage server's
ratio to it tells what the lineage work costs, and the floor's own ratio to
the bare endpoint what durability alone costs.

The client is a raw HTTP/1.1 client over persistent sockets, one per thread,
sending pre-serialized bodies, so it costs little CPU next to the server; its
own CPU share is reported. Every non-2xx answer or failed request is an error.

    .venv/bin/python -m bench.ingest --sizes 10000,100000,1000000

Results go to stdout and to bench/results/ingest-<timestamp>.md.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.metadata
import itertools
import os
import platform
import queue
import shlex
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson
import yaml

from bench.profile_top import summarize
from bench.workload import WORKLOADS, Workload, WorkloadConfig

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
HOST = "127.0.0.1"
SINGLE_PATH = "/api/v1/lineage"
BATCH_PATH = "/api/v1/lineage/batch"
FEAST_CONSUMER_EVENTS_PER_S = 60  # the figure for Feast's own consumer here

TARGET_BATCH = 10_000
TARGET_SINGLE = 1_500
TARGET_SINGLE_RATIO = 0.7
TARGET_SCALE = 2.0
TARGET_RSS_MB = 300


# -- a small HTTP/1.1 client ----------------------------------------------------------


class HttpError(Exception):
    pass


class HttpClient:
    """One persistent connection; pre-built headers and bodies, minimal parsing."""

    def __init__(self, host: str, port: int, timeout: float = 120.0) -> None:
        self.host = host
        self.port = port
        self.timeout = timeout
        self._sock: socket.socket | None = None
        self._buf = bytearray()

    def close(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.close()
            self._sock = None
        self._buf.clear()

    def _connect(self) -> socket.socket:
        sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._sock = sock
        return sock

    def head(self, method: str, path: str, length: int) -> bytes:
        return (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
        ).encode()

    def request(self, head: bytes, body: bytes = b"") -> tuple[int, bytes]:
        """Send one request; the status and body of the answer. Raises OSError/HttpError."""
        sock = self._sock or self._connect()
        try:
            sent = sock.sendmsg([head, body]) if body else sock.send(head)
            if sent < len(head):
                sock.sendall(head[sent:])
                sock.sendall(body)
            elif sent < len(head) + len(body):
                sock.sendall(memoryview(body)[sent - len(head) :])
            return self._response(sock)
        except BaseException:
            self.close()
            raise

    def _fill(self, sock: socket.socket) -> None:
        chunk = sock.recv(262_144)
        if not chunk:
            raise HttpError("connection closed by the server")
        self._buf += chunk

    def _response(self, sock: socket.socket) -> tuple[int, bytes]:
        buf = self._buf
        while (end := buf.find(b"\r\n\r\n")) < 0:
            self._fill(sock)
        lines = bytes(buf[:end]).split(b"\r\n")
        del buf[: end + 4]
        parts = lines[0].split(b" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise HttpError(f"bad status line {lines[0][:80]!r}")
        status = int(parts[1])
        length = 0
        chunked = close = False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding":
                chunked = b"chunked" in value.lower()
            elif name == b"connection":
                close = b"close" in value.lower()
        body = self._chunked(sock) if chunked else self._exactly(sock, length)
        if close:
            self.close()
        return status, body

    def _exactly(self, sock: socket.socket, n: int) -> bytes:
        while len(self._buf) < n:
            self._fill(sock)
        out = bytes(self._buf[:n])
        del self._buf[:n]
        return out

    def _chunked(self, sock: socket.socket) -> bytes:
        out = bytearray()
        while True:
            while (end := self._buf.find(b"\r\n")) < 0:
                self._fill(sock)
            size = int(bytes(self._buf[:end]).split(b";")[0], 16)
            del self._buf[: end + 2]
            chunk = self._exactly(sock, size + 2)
            if size == 0:
                return bytes(out)
            out += chunk[:-2]

    def get_ok(self, path: str) -> bool:
        head = f"GET {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n\r\n".encode()
        status, _ = self.request(head)
        return status == 200


# -- load generation -------------------------------------------------------------------


@dataclass
class LoadResult:
    label: str
    threads: int
    requests: int = 0
    events: int = 0  # events in requests answered 2xx
    errors: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    client_cpu: float = 0.0  # share of one core
    server_cpu: float | None = None  # share of one core
    exhausted: bool = False  # ran out of bodies before the time was up
    next_index: int = 0

    @property
    def rate(self) -> float:
        return self.events / self.wall if self.wall > 0 else 0.0

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (a server's worker processes)."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                todo.extend(int(c) for c in task.read_text().split())
            except OSError:
                continue
    return found


def _one_cpu_seconds(pid: int) -> float | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _proc_cpu_seconds(pid: int) -> dict[int, float] | None:
    """CPU seconds of every process of the tree (compared per pid, as workers come and go)."""
    times = {p: _one_cpu_seconds(p) for p in process_tree(pid)}
    found = {p: t for p, t in times.items() if t is not None}
    return found or None


def proc_status_kb(pid: int, key: str) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def run_load(
    label: str,
    port: int,
    path: str,
    bodies: Sequence[bytes],
    counts: Sequence[int],
    *,
    threads: int,
    seconds: float,
    cycle: bool,
    start_index: int = 0,
    server_pid: int | None = None,
) -> LoadResult:
    """POST ``bodies`` (from ``start_index`` on) from ``threads`` threads for ``seconds``."""
    result = LoadResult(label, threads)
    counter = itertools.count(start_index)
    lock = threading.Lock()
    go = threading.Event()
    clock: list[float] = [0.0]
    n = len(bodies)

    def worker() -> None:
        client = HttpClient(HOST, port)
        heads: dict[int, bytes] = {}
        lat: list[float] = []
        statuses: Counter[str] = Counter()
        samples: list[str] = []
        events = errors = requests = 0
        exhausted = False
        go.wait()
        deadline = clock[0] + seconds
        perf = time.perf_counter
        try:
            while perf() < deadline:
                i = next(counter)
                if i >= n:
                    if not cycle:
                        exhausted = True
                        break
                    i %= n
                body = bodies[i]
                head = heads.get(len(body))
                if head is None:
                    head = heads[len(body)] = client.head("POST", path, len(body))
                t = perf()
                try:
                    status, answer = client.request(head, body)
                except (OSError, HttpError) as err:
                    status, answer = -1, repr(err).encode()
                lat.append(perf() - t)
                requests += 1
                statuses[str(status)] += 1
                if 200 <= status < 300 and status != 207:  # 207: part of a batch failed
                    events += counts[i]
                else:
                    errors += 1
                    if len(samples) < 3:
                        samples.append(f"{status}: {answer[:300].decode(errors='replace')}")
        finally:
            client.close()
        with lock:
            result.requests += requests
            result.events += events
            result.errors += errors
            result.statuses.update(statuses)
            result.latencies.extend(lat)
            result.exhausted = result.exhausted or exhausted
            for s in samples:
                if len(result.error_samples) < 5:
                    result.error_samples.append(s)

    pool = [threading.Thread(target=worker, name=f"load-{k}") for k in range(threads)]
    for t in pool:
        t.start()
    cpu0 = time.process_time()
    server0 = _proc_cpu_seconds(server_pid) if server_pid else None
    clock[0] = time.perf_counter()
    go.set()
    for t in pool:
        t.join(timeout=seconds + 300)
    result.wall = time.perf_counter() - clock[0]
    result.client_cpu = (time.process_time() - cpu0) / result.wall
    if server_pid and server0 is not None:
        server1 = _proc_cpu_seconds(server_pid)
        if server1 is not None:
            used = sum(t - server0.get(p, 0.0) for p, t in server1.items())
            result.server_cpu = used / result.wall
    result.next_index = next(counter)
    return result


# -- servers ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def proc_pss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        return 0
    return 0


class PssSampler(threading.Thread):
    """The peak of the server's memory: PSS summed over its processes, every 0.5 s.

    PSS (proportional set size) counts a page shared by n processes as 1/n in
    each, so the sum is the memory the server as a whole holds; summing RSS
    would count the modules its forked workers share once per process.
    """

    def __init__(self, pid: int) -> None:
        super().__init__(name="pss-sampler", daemon=True)
        self.pid = pid
        self.peak_kb = 0
        self.halt = threading.Event()

    def run(self) -> None:
        while not self.halt.wait(0.5):
            total = sum(proc_pss_kb(p) for p in process_tree(self.pid))
            self.peak_kb = max(self.peak_kb, total)


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    sampler: PssSampler | None = None

    def peak_pss_mb(self) -> float | None:
        if self.sampler is None or not self.sampler.peak_kb:
            return None
        return self.sampler.peak_kb / 1024

    @property
    def pid(self) -> int:
        return self.process.pid

    def peak_rss_mb(self) -> float | None:
        """The sum of the peak RSS of every process of the server (an upper bound)."""
        peaks = [proc_status_kb(p, "VmHWM") for p in process_tree(self.pid)]
        known = [kb for kb in peaks if kb is not None]
        return sum(known) / 1024 if known else None

    def wait_ready(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited early; log:\n{self.log_tail()}")
            client = HttpClient(HOST, self.port, timeout=2)
            try:
                if client.get_ok("/readyz"):
                    return
            except (OSError, HttpError):
                pass
            finally:
                client.close()
            time.sleep(0.1)
        raise RuntimeError(f"{self.name} did not become ready; log:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 120) -> None:
        if self.sampler is not None:
            self.sampler.halt.set()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)


def start_server(name: str, cmd: list[str], log_path: Path, env: dict[str, str]) -> Server:
    port = int(cmd[-1])
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT, env={**os.environ, **env}
        )
    server = Server(name, process, port, log_path, PssSampler(process.pid))
    assert server.sampler is not None
    server.sampler.start()
    try:
        server.wait_ready()
    except BaseException:
        server.stop(timeout=10)
        raise
    return server


def write_repo(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    config = {
        "project": "bench",
        "registry": {"registry_type": "sql", "path": "sqlite:///data/registry.db"},
        "provider": "local",
        "online_store": {"type": "sqlite", "path": "data/online.db"},
        "entity_key_serialization_version": 3,
        "openlineage": {
            "consumer": {"enabled": True, "connection_string": "sqlite:///data/lineage.db"}
        },
    }
    (repo / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return repo


def lineage_cmd(repo: Path, workers: int, port: int) -> list[str]:
    exe = Path(sys.executable).parent / "feast-lineage"
    cmd = [str(exe), "-c", str(repo), "serve_lineage", "--workers", str(workers)]
    return [*cmd, "--port", str(port)]


def bare_cmd(workers: int, port: int) -> list[str]:
    return [sys.executable, "-m", "bench.bare_app", "--workers", str(workers), "--port", str(port)]


def floor_cmd(workers: int, store_dir: Path, port: int) -> list[str]:
    cmd = [sys.executable, "-m", "bench.floor_app", "--workers", str(workers)]
    return [*cmd, "--dir", str(store_dir), "--port", str(port)]


def src_fingerprint() -> str:
    """A digest of the server's source, to tell whether it changed during a run."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "src").rglob("*.py")):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def store_files(repo: Path) -> list[Path]:
    data = repo / "data"
    return [p for p in data.glob("lineage.db*") if p.is_file()]


def store_bytes(repo: Path) -> int:
    return sum(p.stat().st_size for p in store_files(repo))


def count_events(repo: Path) -> int:
    db = repo / "data" / "lineage.db"
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM feast_lineage_events").fetchone()[0])
    finally:
        conn.close()


def snapshot(repo: Path, into: Path) -> None:
    into.mkdir(parents=True, exist_ok=True)
    for p in store_files(repo):
        shutil.copyfile(p, into / p.name)
    settle()


def restore(repo: Path, from_dir: Path) -> None:
    for p in store_files(repo):
        p.unlink()
    for p in from_dir.iterdir():
        shutil.copyfile(p, repo / "data" / p.name)
    settle()


def settle() -> None:
    """Write the copies' dirty pages out before the next measured phase.

    A copy of a million-event store leaves 2.2 GB for the kernel to write
    back; left alone, that writeback runs during the phase after it, and the
    store's checkpoints (``fdatasync``) wait behind it.
    """
    started = time.perf_counter()
    os.sync()
    log(f"flushed the store copies to disk in {time.perf_counter() - started:.1f} s")


# -- the benchmark ---------------------------------------------------------------------


@dataclass
class SizeResult:
    size: int
    prefill_rate: float = 0.0
    prefill_errors: int = 0
    stored_after_prefill: int = 0
    store_mb: float = 0.0
    jobs: int = 0
    datasets: int = 0
    rss_mb: dict[str, float | None] = field(default_factory=dict)
    pss_mb: dict[str, float | None] = field(default_factory=dict)
    phases: dict[str, tuple[LoadResult, LoadResult]] = field(default_factory=dict)
    floors: dict[str, LoadResult] = field(default_factory=dict)
    stored_after: dict[str, int] = field(default_factory=dict)
    acknowledged: dict[str, int] = field(default_factory=dict)
    profiles: dict[str, str] = field(default_factory=dict)
    code: dict[str, str] = field(default_factory=dict)  # src/ fingerprint at each server start


@dataclass
class Profiler:
    process: subprocess.Popen[bytes]
    output: Path
    gil: bool
    seconds: float


def start_profiler(pid: int, seconds: float, output: Path, *, gil: bool) -> Profiler:
    exe = Path(sys.executable).parent / "py-spy"
    cmd = [str(exe), "record", "-p", str(pid), "-d", str(max(1, int(seconds)))]
    cmd += ["-r", "100", "--format", "raw", "--threads", "--nolineno", "--nonblocking"]
    cmd.append("--subprocesses")  # the worker processes
    if gil:
        cmd.append("--gil")
    cmd += ["-o", str(output)]
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return Profiler(process, output, gil, seconds)


def finish_profiler(spy: Profiler, title: str) -> str:
    try:
        spy.process.wait(timeout=120)
    except subprocess.TimeoutExpired:
        spy.process.kill()
        spy.process.wait(timeout=10)
    if not spy.output.exists():
        return f"### {title}\n\n(py-spy wrote no profile)\n"
    text = spy.output.read_text(errors="replace")
    return summarize(text, title=title, gil_seconds=spy.seconds if spy.gil else None)


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def prefill(port: int, workload: Workload, n: int, batch: int, limit_s: float) -> tuple[float, int]:
    """Send ``n`` events in batches from 2 threads; (events/s, failed requests)."""
    q: queue.Queue[bytes | None] = queue.Queue(maxsize=64)
    stop = threading.Event()
    errors: list[str] = []
    done = [0]
    lock = threading.Lock()
    senders = 2

    def produce() -> None:
        try:
            for body in workload.iter_batches(n, batch):
                while not stop.is_set():
                    try:
                        q.put(body, timeout=1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
        finally:
            for _ in range(senders):
                q.put(None)

    def send() -> None:
        client = HttpClient(HOST, port)
        head_cache: dict[int, bytes] = {}
        try:
            while (body := q.get()) is not None:
                head = head_cache.get(len(body))
                if head is None:
                    head = head_cache[len(body)] = client.head("POST", BATCH_PATH, len(body))
                try:
                    status, answer = client.request(head, body)
                except (OSError, HttpError) as err:
                    status, answer = -1, repr(err).encode()
                with lock:
                    if status == 204:
                        done[0] += body.count(b'"eventType"')
                    else:
                        errors.append(f"{status}: {answer[:300]!r}")
        finally:
            client.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=produce, name="prefill-gen")]
    threads += [threading.Thread(target=send, name=f"prefill-{k}") for k in range(senders)]
    for t in threads:
        t.start()
    next_report = started + 15
    while any(t.is_alive() for t in threads):
        threads[0].join(timeout=1)
        now = time.perf_counter()
        if now > started + limit_s and not stop.is_set():
            log(f"prefill: time limit of {limit_s:.0f} s reached; stopping")
            stop.set()
        if now >= next_report:
            log(f"prefill: {done[0]:,}/{n:,} events, {done[0] / (now - started):,.0f}/s")
            next_report = now + 15
        if not threads[0].is_alive():
            for t in threads[1:]:
                t.join(timeout=limit_s)
            break
    elapsed = time.perf_counter() - started
    if errors:
        log(f"prefill: {len(errors)} failed requests, first: {errors[0]}")
    return done[0] / elapsed, len(errors)


def measure_baseline(
    server: Server,
    label: str,
    path: str,
    bodies: list[bytes],
    counts: list[int],
    threads: int,
    seconds: float,
    warmup: float,
) -> LoadResult:
    """A warm-up, then the measured load, cycling through ``bodies``."""
    warm = run_load(
        "warm-up", server.port, path, bodies, counts, threads=threads, seconds=warmup, cycle=True
    )
    return run_load(
        label,
        server.port,
        path,
        bodies,
        counts,
        threads=threads,
        seconds=seconds,
        cycle=True,
        start_index=warm.next_index,
        server_pid=server.pid,
    )


def measure_size(
    size: int,
    args: argparse.Namespace,
    bare: Server,
    floor: Server,
    run_dir: Path,
    start: datetime,
) -> SizeResult:
    res = SizeResult(size)
    repo = write_repo(run_dir / f"store-{size}")
    log_path = repo / "server.log"
    env = {"PYTHONUNBUFFERED": "1"}
    workload = Workload(
        WorkloadConfig(seed=args.seed, start=start, column_chains=WORKLOADS[args.workload])
    )

    log(f"size {size:,}: starting the lineage server and filling the store")
    res.code["prefill"] = src_fingerprint()
    server = start_server(
        "lineage server", lineage_cmd(repo, args.workers, free_port()), log_path, env
    )
    try:
        res.prefill_rate, res.prefill_errors = prefill(
            server.port, workload, size, args.batch_size, args.prefill_limit
        )
        res.rss_mb["prefill"] = server.peak_rss_mb()
        res.pss_mb["prefill"] = server.peak_pss_mb()
    finally:
        server.stop()
    res.jobs, res.datasets = len(workload.jobs()), len(workload.datasets())
    res.stored_after_prefill = count_events(repo)
    res.store_mb = store_bytes(repo) / 1e6
    log(
        f"size {size:,}: prefill {res.prefill_rate:,.0f} events/s, "
        f"{res.stored_after_prefill:,} events stored, {res.store_mb:,.0f} MB on disk"
    )
    snap = run_dir / f"snapshot-{size}"
    snapshot(repo, snap)

    # The events that follow the prefill in the stream; both phases start from them.
    n_next = max(args.single_cap, args.batch_cap)
    following = workload.take(n_next)
    singles = [orjson.dumps(e) for e in following[: args.single_cap]]
    batch_events = following[: args.batch_cap]
    batches = [
        orjson.dumps(batch_events[i : i + args.batch_size])
        for i in range(0, len(batch_events), args.batch_size)
    ]
    batch_counts = [
        min(args.batch_size, len(batch_events) - i)
        for i in range(0, len(batch_events), args.batch_size)
    ]
    del following, batch_events

    plan = (
        ("single", SINGLE_PATH, singles, [1] * len(singles), args.single_threads, args.seconds),
        ("batch", BATCH_PATH, batches, batch_counts, args.batch_threads, args.batch_seconds),
    )
    for mode, path, bodies, counts, threads, seconds in plan:
        if mode == "batch":
            restore(repo, snap)
        # The bare endpoint, the floor, then the lineage server, with the same bodies.
        bare_res = measure_baseline(
            bare, f"bare {mode}", path, bodies, counts, threads, seconds, args.warmup
        )
        log(f"size {size:,}: bare {mode}: {bare_res.rate:,.0f} events/s")
        res.floors[mode] = measure_baseline(
            floor, f"floor {mode}", path, bodies, counts, threads, seconds, args.warmup
        )
        log(f"size {size:,}: floor {mode}: {res.floors[mode].rate:,.0f} events/s")
        res.code[mode] = src_fingerprint()
        server = start_server(
            "lineage server", lineage_cmd(repo, args.workers, free_port()), log_path, env
        )
        try:
            spy = None
            warm = run_load(
                "warm-up",
                server.port,
                path,
                bodies,
                counts,
                threads=threads,
                seconds=args.warmup,
                cycle=False,
            )
            if args.profile:
                spy = start_profiler(
                    server.pid,
                    seconds,
                    run_dir / f"profile-{size}-{mode}.txt",
                    gil=args.profile == "gil",
                )
            real = run_load(
                f"lineage {mode}",
                server.port,
                path,
                bodies,
                counts,
                threads=threads,
                seconds=seconds,
                cycle=False,
                start_index=warm.next_index,
                server_pid=server.pid,
            )
            res.rss_mb[mode] = server.peak_rss_mb()
            res.pss_mb[mode] = server.peak_pss_mb()
            if spy is not None:
                res.profiles[mode] = finish_profiler(spy, f"store {size:,}, {mode}")
            res.acknowledged[mode] = warm.events + real.events
            if warm.errors:
                log(f"size {size:,}: {warm.errors} errors during warm-up: {warm.error_samples}")
        finally:
            server.stop()
        res.stored_after[mode] = count_events(repo)
        res.phases[mode] = (real, bare_res)
        log(
            f"size {size:,}: lineage {mode}: {real.rate:,.0f} events/s "
            f"({real.rate / bare_res.rate if bare_res.rate else 0:.2f} of bare, "
            f"{_ratio(real.rate, res.floors[mode].rate)} of the floor), "
            f"{real.errors} errors"
        )
        if real.error_samples:
            log(f"  error samples: {real.error_samples}")
    if not args.keep:
        shutil.copyfile(log_path, run_dir / f"server-{size}.log")
        shutil.rmtree(snap, ignore_errors=True)
        shutil.rmtree(repo, ignore_errors=True)
    return res


# -- report ----------------------------------------------------------------------------


def _run(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30, cwd=ROOT)
    except (OSError, subprocess.SubprocessError):
        return ""
    return out.stdout.strip()


def short_commit() -> str:
    """The checkout's commit, short ("" outside git)."""
    return _run(["git", "rev-parse", "--short", "HEAD"])


def machine_details() -> list[tuple[str, str]]:
    cpu: dict[str, str] = {}
    for line in _run(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        cpu[key.strip()] = value.strip()
    model = cpu.get("Model name", platform.processor() or "unknown CPU")
    if "CPU family" in cpu:
        model += f", family {cpu['CPU family']} model {cpu.get('Model', '?')}"
    if "Hypervisor vendor" in cpu:
        model += f", {cpu['Hypervisor vendor']} guest"
    mhz = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                mhz = f", {float(line.split(':')[1]) / 1000:.1f} GHz"
                break
    mem_kb = 0
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    versions = []
    for pkg in ("fastapi", "starlette", "uvicorn", "uvloop", "httptools", "sqlalchemy", "orjson"):
        try:
            versions.append(f"{pkg} {importlib.metadata.version(pkg)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{pkg} (missing)")
    commit = short_commit()
    dirty = _run(["git", "diff", "--stat", "HEAD", "--", "src"])
    return [
        ("CPU", f"{model}{mhz}, {os.cpu_count()} cores"),
        ("memory", f"{mem_kb / 1024 / 1024:.1f} GiB"),
        ("OS", f"{platform.system()} {platform.release()}"),
        ("Python", platform.python_version()),
        ("SQLite", sqlite3.sqlite_version),
        ("packages", ", ".join(versions)),
        ("git commit", f"{commit}{' (src/ modified)' if dirty else ''}"),
    ]


def _fmt_rate(x: float) -> str:
    return f"{x:,.0f}"


def _ms(x: float) -> str:
    return f"{x * 1000:.1f}"


def _share(x: float | None) -> str:
    return f"{x * 100:.0f}%" if x is not None else "n/a"


def render(
    results: list[SizeResult],
    args: argparse.Namespace,
    command: str,
    started: datetime,
    elapsed: float,
    workload_info: list[str],
    loads: tuple[tuple[float, ...], tuple[float, ...]],
) -> str:
    out: list[str] = []
    out.append(f"# Ingest benchmark, {started.strftime('%Y-%m-%d %H:%M UTC')}")
    out.append("")
    out.append(f"Command: `{command}` (took {elapsed / 60:.1f} min)")
    out.append("")
    out.append(
        "Each figure is events acknowledged with a 2xx per second of wall time; "
        "*ratio* is the lineage server's figure divided by the bare FastAPI endpoint's, "
        "measured just before it with the same client, bodies and threads; *floor* is "
        "the durable ingest floor (`bench/floor_app.py`: validate, commit to an "
        "append-only table, nothing else), measured right after the bare endpoint. "
        f"Singles: {args.single_threads} client threads, {args.seconds:g} s; "
        f"batches of {args.batch_size}: {args.batch_threads} client threads, "
        f"{args.batch_seconds:g} s; each after a {args.warmup:g} s warm-up, on a "
        "freshly restarted server whose store holds the prefilled events."
    )
    out.append("")
    out.append(
        "| store | mode | events/s | bare events/s | ratio | floor events/s | floor / bare "
        "| of floor | requests | errors | p50 ms | p99 ms | bare p50 ms | server CPU "
        "| bare CPU | floor CPU | client CPU | events stored after |"
    )
    out.append(
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    for r in results:
        for mode in ("single", "batch"):
            if mode not in r.phases:
                continue
            real, bare = r.phases[mode]
            ratio = real.rate / bare.rate if bare.rate else 0.0
            flag = " (bodies ran out)" if real.exhausted else ""
            floor = r.floors.get(mode)
            floor_rate = floor.rate if floor is not None else 0.0
            out.append(
                f"| {r.size:,} | {mode} | {_fmt_rate(real.rate)}{flag} | {_fmt_rate(bare.rate)} "
                f"| {ratio:.2f} | {_fmt_rate(floor_rate)} | {_ratio(floor_rate, bare.rate)} "
                f"| {_ratio(real.rate, floor_rate)} | {real.requests:,} | {real.errors} "
                f"| {_ms(real.percentile(0.5))} | {_ms(real.percentile(0.99))} "
                f"| {_ms(bare.percentile(0.5))} | {_share(real.server_cpu)} "
                f"| {_share(bare.server_cpu)} "
                f"| {_share(floor.server_cpu if floor is not None else None)} "
                f"| {_share(real.client_cpu)} | {r.stored_after.get(mode, 0):,} |"
            )
    out.append("")
    out.append(
        "| store | prefill events/s | events stored | jobs | datasets | store on disk "
        "| peak memory prefill | peak memory singles | peak memory batches |"
    )
    out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        cells = " | ".join(
            _memory(r.pss_mb.get(k), r.rss_mb.get(k)) for k in ("prefill", "single", "batch")
        )
        out.append(
            f"| {r.size:,} | {_fmt_rate(r.prefill_rate)} | {r.stored_after_prefill:,} "
            f"| {r.jobs:,} | {r.datasets:,} | {r.store_mb:,.0f} MB | {cells} |"
        )
    out.append("")
    out.append(
        "Peak memory: PSS summed over the server's processes, sampled every 0.5 s (the "
        "memory the server holds; pages its forked workers share count once), then in "
        "parentheses the sum of each process's peak RSS (an upper bound that counts "
        "shared pages once per process)."
    )
    out.append("")
    out.append(
        "Prefill sends batches of 100 from 2 threads while the same client process "
        "generates the events, so it is a lower bound of the batch rate."
    )
    out.append("")
    out.extend(targets(results))
    out.append("")
    problems = []
    for r in results:
        if r.prefill_errors:
            problems.append(f"- store {r.size:,}: {r.prefill_errors} failed prefill requests")
        if r.stored_after_prefill != r.size:
            problems.append(
                f"- store {r.size:,}: {r.stored_after_prefill:,} events stored after prefill"
            )
        for mode, (real, _bare) in r.phases.items():
            expected = r.stored_after_prefill + r.acknowledged.get(mode, 0)
            if r.stored_after.get(mode) != expected:
                problems.append(
                    f"- store {r.size:,} {mode}: {r.stored_after.get(mode, 0):,} events stored, "
                    f"expected {expected:,} (prefill + acknowledged)"
                )
            for sample in real.error_samples:
                problems.append(f"- store {r.size:,} {mode} error: `{sample[:200]}`")
    codes = list(dict.fromkeys(c for r in results for c in r.code.values()))
    if len(codes) > 1:
        where = ", ".join(
            f"{r.size:,} {phase}: {code}" for r in results for phase, code in r.code.items()
        )
        code_note = (
            "- the server's source (src/) changed during the run, so phases ran different "
            f"code; fingerprint at each server start: {where}"
        )
    else:
        code_note = "- the server's source (src/) did not change during the run"
    out.append("## Checks")
    out.append("")
    if problems:
        out.extend(problems)
    else:
        out.append(
            "- every request was answered 2xx, and after each phase the store held exactly "
            "the prefilled events plus every acknowledged one"
        )
    out.append(code_note)
    out.append("")
    out.append("## Workload")
    out.append("")
    out.extend(workload_info)
    out.append("")
    out.append("## Machine")
    out.append("")
    for key, value in machine_details():
        out.append(f"- {key}: {value}")
    out.append(
        f"- load average (1 min) at start / end: {loads[0][0]:.2f} / {loads[1][0]:.2f} "
        "(other work shares this machine)"
    )
    codes = list(dict.fromkeys(c for r in results for c in r.code.values()))
    out.append(f"- src/ fingerprint (sha256 of src/**/*.py): {', '.join(codes) or 'n/a'}")
    return "\n".join(out) + "\n"


def targets(results: list[SizeResult]) -> list[str]:
    out = ["## Targets (issue 2)", ""]
    out.append("| target | measured | met |")
    out.append("|---|---|---|")

    def row(name: str, value: str, ok: bool | None) -> None:
        out.append(f"| {name} | {value} | {'yes' if ok else 'no' if ok is not None else 'n/a'} |")

    for r in results:
        if "batch" in r.phases:
            rate = r.phases["batch"][0].rate
            row(f"batches >= {TARGET_BATCH:,} events/s ({r.size:,})", _fmt_rate(rate), rate >= 1e4)
        if "single" in r.phases:
            real, bare = r.phases["single"]
            ratio = real.rate / bare.rate if bare.rate else 0.0
            row(
                f"singles >= {TARGET_SINGLE:,} events/s and >= {TARGET_SINGLE_RATIO} of bare "
                f"({r.size:,})",
                f"{_fmt_rate(real.rate)} ({ratio:.2f})",
                real.rate >= TARGET_SINGLE and ratio >= TARGET_SINGLE_RATIO,
            )
    if len(results) >= 2:
        small, big = results[0], results[-1]
        for mode in ("single", "batch"):
            if mode in small.phases and mode in big.phases:
                a, b = small.phases[mode][0].rate, big.phases[mode][0].rate
                row(
                    f"{mode} at {big.size:,} within {TARGET_SCALE:g}x of {small.size:,}",
                    f"{b / a if a else 0:.2f}x",
                    a > 0 and b * TARGET_SCALE >= a,
                )
    peak = max((x for r in results for x in r.pss_mb.values() if x is not None), default=None)
    row(
        f"peak memory (PSS of all processes) < {TARGET_RSS_MB} MB",
        f"{peak:,.0f} MB" if peak is not None else "n/a",
        None if peak is None else peak < TARGET_RSS_MB,
    )
    best = max((r.phases["batch"][0].rate for r in results if "batch" in r.phases), default=0.0)
    out.append("")
    out.append(
        f"For scale: Feast's own consumer manages about {FEAST_CONSUMER_EVENTS_PER_S} events/s "
        f"on this workload here (issue 2); the best batch figure above is "
        f"{best / FEAST_CONSUMER_EVENTS_PER_S:,.0f}x that."
    )
    return out


def describe_workload(args: argparse.Namespace, start: datetime, sizes: list[int]) -> list[str]:
    """Statistics of the stream's first events (a separate replay, not timed)."""
    w = Workload(
        WorkloadConfig(seed=args.seed, start=start, column_chains=WORKLOADS[args.workload])
    )
    sample = min(20_000, max(sizes))
    n_bytes = sum(len(orjson.dumps(e)) for e in w.take(sample))
    st = w.stats
    return [
        f"- `bench/workload.py`, seed {args.seed}, event times from {start.isoformat()} on, "
        "~0.5 s apart; producers Airflow, Spark, dbt, Flink and Feast (see the module doc)",
        f"- first {sample:,} events: {n_bytes / sample:,.0f} bytes per event on average, "
        f"{st.dataset_refs / st.events:.2f} datasets per event, "
        f"{st.symlinked_refs / st.dataset_refs:.0%} of dataset references with symlinks, "
        f"{st.child_runs / st.runs:.0%} of runs with a parent; a START and a COMPLETE per run",
        f"- workload `{args.workload}`: {st.column_edges:,} column edges stated by the "
        f"first {sample:,} events' distinct columnLineage facets",
        "- jobs and datasets grow with the square root of the events sent "
        "(see the per-store table)",
        f"- servers: {args.workers} worker process{'es' if args.workers > 1 else ''} each "
        "(`serve_lineage --workers`, and the bare endpoint alike); CPU and memory are "
        "summed over every process of a server",
    ]


def _ratio(value: float, baseline: float) -> str:
    return f"{value / baseline:.2f}" if baseline else "n/a"


def _memory(pss: float | None, rss: float | None) -> str:
    first = f"{pss:,.0f} MB" if pss is not None else "n/a"
    return first + (f" ({rss:,.0f} MB)" if rss is not None else "")


def parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.split(","):
        part = part.strip().lower().replace("_", "")
        mult = 1
        if part.endswith("k"):
            part, mult = part[:-1], 1_000
        elif part.endswith("m"):
            part, mult = part[:-1], 1_000_000
        sizes.append(int(float(part) * mult))
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.ingest", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--sizes", default="10000,100000,1000000", help="store sizes (events)")
    parser.add_argument("--seconds", type=float, default=15, help="duration of a singles phase")
    parser.add_argument("--batch-seconds", type=float, default=10, help="duration of a batch phase")
    parser.add_argument("--warmup", type=float, default=2, help="warm-up before each phase (s)")
    parser.add_argument(
        "--workers",
        type=int,
        default=2,
        help="worker processes of the lineage server and of the bare endpoint alike",
    )
    parser.add_argument("--single-threads", type=int, default=4)
    parser.add_argument("--batch-threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=100)
    parser.add_argument(
        "--single-cap", type=int, default=60_000, help="most single events sent to the server"
    )
    parser.add_argument(
        "--batch-cap", type=int, default=200_000, help="most batched events sent to the server"
    )
    parser.add_argument("--prefill-limit", type=float, default=1800, help="prefill time limit (s)")
    parser.add_argument("--seed", type=int, default=WorkloadConfig.seed)
    parser.add_argument("--data-dir", type=Path, default=BENCH_DIR / "data")
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    parser.add_argument("--keep", action="store_true", help="keep the stores under --data-dir")
    parser.add_argument(
        "--workload",
        choices=sorted(WORKLOADS),
        default="standard",
        help="standard, or columns: with column-heavy Spark chains (bench/workload.py)",
    )
    parser.add_argument(
        "--profile",
        nargs="?",
        const="all",
        choices=["all", "gil"],
        help="record the lineage server with py-spy during each measured phase: every "
        "busy thread (all, the default) or only the thread holding the GIL (gil)",
    )
    args = parser.parse_args(argv)
    sizes = parse_sizes(args.sizes)

    started = datetime.now(UTC)
    stamp = started.strftime("%Y%m%d-%H%M%S")
    # Recent event times (retention keeps 30 days by default), the same all day long.
    today = started.replace(hour=0, minute=0, second=0, microsecond=0)
    start = today - timedelta(days=7)
    run_dir = args.data_dir / f"ingest-{stamp}"
    run_dir.mkdir(parents=True, exist_ok=True)
    command = " ".join(
        [".venv/bin/python -m bench.ingest", *(shlex.quote(a) for a in (argv or sys.argv[1:]))]
    )
    load0 = os.getloadavg()
    t0 = time.perf_counter()
    results: list[SizeResult] = []
    bare_port = free_port()
    bare = start_server(
        "bare endpoint", bare_cmd(args.workers, bare_port), run_dir / "bare.log", {}
    )
    try:
        floor = start_server(
            "durable floor",
            floor_cmd(args.workers, run_dir / "floor", free_port()),
            run_dir / "floor.log",
            {},
        )
        try:
            for size in sizes:
                results.append(measure_size(size, args, bare, floor, run_dir, start))
        finally:
            floor.stop()
            shutil.rmtree(run_dir / "floor", ignore_errors=True)
    finally:
        bare.stop()
        if not args.keep:  # also after a failure
            for child in run_dir.iterdir():
                if child.is_dir() and child.name.startswith(("store-", "snapshot-")):
                    shutil.rmtree(child, ignore_errors=True)
    elapsed = time.perf_counter() - t0
    info = describe_workload(args, start, sizes)
    report = render(results, args, command, started, elapsed, info, (load0, os.getloadavg()))
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / f"ingest-{stamp}.md"
    path.write_text(report)
    print(report)
    profiles = [text for r in results for text in r.profiles.values()]
    if profiles:
        prof_path = args.out_dir / f"ingest-{stamp}-profile.md"
        header = f"# Where the lineage server's time goes ({stamp})\n\nCommand: `{command}`\n\n"
        prof_path.write_text(header + "\n".join(profiles))
        log(f"profiles written to {prof_path}")
    log(f"written to {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
