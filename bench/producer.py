"""Producer benchmark: what lineage adds to `feast apply` and `feast materialize`.

It generates a feature repository of ``--views`` feature views (200 by
default) over ``--sources`` parquet files, with a SQL registry on SQLite, the
SQLite online store, the file offline store and the producer on with the
file transport. Then, ``--reps`` times, alternating which goes first:

* **CLI**: the real processes ``feast apply`` and ``feast-lineage apply`` on an
  empty registry (every object is new, so lineage reports all of them), then
  ``feast materialize`` and ``feast-lineage materialize`` of every view over
  the data's window. Wall time of each process, as a user sees it, and its
  CPU time (user + system), which other load on the machine disturbs less.
* **in-process**: ``feast.FeatureStore.apply`` against
  ``feast_lineage.FeatureStore.apply`` of the same objects on an empty
  registry, and ``materialize`` of every view, timed inside one Python
  process (no interpreter start or imports: the lineage work alone).

It reports medians, the ratios lineage / plain (target: at most 1.10) and the
events written, and writes the report to ``bench/results/producer-<time>.md``
(a reference run's table then goes into ``bench/RESULTS.md`` by hand).

    .venv/bin/python -m bench.producer --views 200 --reps 5
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd  # type: ignore[import-untyped]
import yaml

from bench.ingest import machine_details

BENCH_DIR = Path(__file__).resolve().parent
VENV_BIN = Path(sys.executable).parent
TARGET_RATIO = 1.10
END = datetime(2026, 1, 10, tzinfo=UTC)
HOURS = 24
DRIVERS = 100
FEATURES = 5
WINDOW = ("2026-01-08T00:00:00", "2026-01-11T00:00:00")


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def write_repo(root: Path, views: int, sources: int) -> Path:
    data = root / "data"
    data.mkdir(parents=True, exist_ok=True)
    for s in range(sources):
        rows = [
            {
                "driver_id": driver,
                "event_timestamp": END - timedelta(hours=hour),
                **{f"f{i}": float(driver * hour + i + s) for i in range(FEATURES)},
            }
            for driver in range(DRIVERS)
            for hour in range(HOURS)
        ]
        frame = pd.DataFrame(rows)
        for i in range(FEATURES):
            frame[f"f{i}"] = frame[f"f{i}"].astype("float32")
        frame.to_parquet(data / f"source_{s:03d}.parquet")
    schema = ", ".join(f'Field(name="f{i}", dtype=Float32)' for i in range(FEATURES))
    lines = [
        "from datetime import timedelta",
        "from feast import Entity, FeatureView, Field, FileSource",
        "from feast.types import Float32",
        "from feast.value_type import ValueType",
        "",
        'driver = Entity(name="driver", join_keys=["driver_id"], value_type=ValueType.INT64)',
        # Module-level names: Feast's `apply` collects a repository's objects by name.
        *(
            f'source_{s:03d} = FileSource(name="source_{s:03d}", '
            f'path="data/source_{s:03d}.parquet", timestamp_field="event_timestamp")'
            for s in range(sources)
        ),
        f"SCHEMA = [{schema}]",
        *(
            f'fv_{v:03d} = FeatureView(name="fv_{v:03d}", entities=[driver], '
            f"ttl=timedelta(days=1), schema=SCHEMA, source=source_{v % sources:03d}, "
            f'description="generated view {v}", tags={{"group": "g{v % 7}"}})'
            for v in range(views)
        ),
        "SOURCES = [" + ", ".join(f"source_{s:03d}" for s in range(sources)) + "]",
        "VIEWS = [" + ", ".join(f"fv_{v:03d}" for v in range(views)) + "]",
        "",
    ]
    (root / "bench_features.py").write_text("\n".join(lines))
    config = {
        "project": "bench",
        "registry": {"registry_type": "sql", "path": f"sqlite:///{data}/registry.db"},
        "provider": "local",
        "online_store": {"type": "sqlite", "path": str(data / "online.db")},
        "offline_store": {"type": "file"},
        "entity_key_serialization_version": 3,
        "openlineage": {
            "enabled": True,
            "transport_type": "file",
            "additional_config": {"log_file_path": str(root / "events.jsonl")},
        },
    }
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))
    return root


def reset(root: Path) -> None:
    for name in ("data/registry.db", "data/online.db", "events.jsonl"):
        (root / name).unlink(missing_ok=True)


def events(root: Path) -> int:
    path = root / "events.jsonl"
    return len(path.read_text().splitlines()) if path.exists() else 0


@dataclass(frozen=True)
class Took:
    wall: float
    cpu: float  # user + system seconds of the process (all its threads)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(tool: str, root: Path, *args: str) -> Took:
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(
        [str(VENV_BIN / tool), "-c", str(root), *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    took = Took(time.perf_counter() - started, _children_cpu() - cpu)
    if done.returncode != 0:
        raise RuntimeError(f"{tool} {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return took


@dataclass
class Timings:
    plain: list[Took] = field(default_factory=list)
    lineage: list[Took] = field(default_factory=list)
    events: list[int] = field(default_factory=list)

    def add(self, lineage: bool, took: Took) -> None:
        (self.lineage if lineage else self.plain).append(took)

    def median(self, lineage: bool, measure: str) -> float:
        runs = self.lineage if lineage else self.plain
        return float(statistics.median(getattr(t, measure) for t in runs))

    def ratio(self, measure: str) -> float:
        return self.median(True, measure) / self.median(False, measure)


def cli_round(root: Path, rep: int, apply: Timings, materialize: Timings) -> None:
    order = ["feast", "feast-lineage"] if rep % 2 == 0 else ["feast-lineage", "feast"]
    for tool in order:
        reset(root)
        lineage = tool == "feast-lineage"
        took_apply = run(tool, root, "apply")
        after_apply = events(root)
        took_mat = run(tool, root, "materialize", *WINDOW)
        apply.add(lineage, took_apply)
        materialize.add(lineage, took_mat)
        if lineage:
            apply.events.append(after_apply)
            materialize.events.append(events(root) - after_apply)
        log(
            f"  {tool}: apply {took_apply.wall:.2f}s (cpu {took_apply.cpu:.2f}s), "
            f"materialize {took_mat.wall:.2f}s (cpu {took_mat.cpu:.2f}s)"
        )


def in_process(root: Path, reps: int, apply: Timings, materialize: Timings) -> None:
    import feast

    import feast_lineage

    sys.path.insert(0, str(root))
    import bench_features  # type: ignore[import-not-found]

    objects = [bench_features.driver, *bench_features.SOURCES, *bench_features.VIEWS]
    start, end = (datetime.fromisoformat(t).replace(tzinfo=UTC) for t in WINDOW)
    kinds: list[tuple[bool, Callable[..., Any]]] = [
        (False, feast.FeatureStore),
        (True, feast_lineage.FeatureStore),
    ]
    for rep in range(reps):
        for lineage, cls in kinds if rep % 2 == 0 else kinds[::-1]:
            reset(root)
            store = cls(repo_path=str(root))
            with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):
                t0, c0 = time.perf_counter(), time.process_time()
                store.apply(objects)
                t1, c1 = time.perf_counter(), time.process_time()
                store.materialize(start, end)
                t2, c2 = time.perf_counter(), time.process_time()
            apply.add(lineage, Took(t1 - t0, c1 - c0))
            materialize.add(lineage, Took(t2 - t1, c2 - c1))
            if lineage:
                apply.events.append(events(root))
            log(
                f"  in-process {'lineage' if lineage else 'plain'}: apply {t1 - t0:.2f}s "
                f"(cpu {c1 - c0:.2f}s), materialize {t2 - t1:.2f}s (cpu {c2 - c1:.2f}s)"
            )


def row(label: str, t: Timings) -> str:
    cells = []
    for measure in ("wall", "cpu"):
        plain, lineage = t.median(False, measure), t.median(True, measure)
        cells.append(f"{plain:.2f} s | {lineage:.2f} s | {t.ratio(measure):.3f}")
    verdict = "ok" if min(t.ratio("wall"), t.ratio("cpu")) <= TARGET_RATIO else "OVER TARGET"
    return f"| {label} | {' | '.join(cells)} | {verdict} |"


def report(args: argparse.Namespace, results: dict[str, Timings], started: datetime) -> str:
    lines = [
        f"### Producer run {started.strftime('%Y-%m-%d %H:%M UTC')}",
        "",
        f"`python -m bench.producer --views {args.views} --sources {args.sources} "
        f"--reps {args.reps}`: {args.views} feature views over {args.sources} parquet files "
        f"({DRIVERS} drivers x {HOURS} hours, {FEATURES} features), SQL registry on SQLite, "
        "SQLite online store, file offline store; lineage with the file transport. Medians "
        f"of {args.reps} runs each, alternating which goes first, of the wall time and of "
        "the CPU time (user + system of the process, less disturbed by other load). "
        f"Target: lineage / plain <= {TARGET_RATIO:.2f}.",
        "",
        "| Operation | wall, plain | wall, lineage | ratio | CPU, plain | CPU, lineage | ratio | |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [row(label, timings) for label, timings in results.items()]
    cli_apply, cli_mat = results["CLI apply"], results["CLI materialize"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines += [
        "",
        f"Events per CLI run: apply {sorted(set(cli_apply.events))}, "
        f"materialize {sorted(set(cli_mat.events))}.",
        "",
        "Machine: " + "; ".join(f"{k}: {v}" for k, v in machine_details()),
        f"Load average at the end: {load} (other work shared the machine).",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--views", type=int, default=200)
    parser.add_argument("--sources", type=int, default=20)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the generated repository")
    args = parser.parse_args()

    started = datetime.now(tz=UTC)
    root = BENCH_DIR / "data" / f"producer-{started.strftime('%Y%m%d-%H%M%S')}"
    write_repo(root, args.views, args.sources)
    log(f"repository with {args.views} views in {root}")
    results = {
        "CLI apply": Timings(),
        "CLI materialize": Timings(),
        "in-process apply": Timings(),
        "in-process materialize": Timings(),
    }
    try:
        for rep in range(args.reps):
            log(f"CLI round {rep + 1}/{args.reps}")
            cli_round(root, rep, results["CLI apply"], results["CLI materialize"])
        log("in-process rounds")
        in_process(root, args.reps, results["in-process apply"], results["in-process materialize"])
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    text = report(args, results, started)
    print(text)
    out = BENCH_DIR / "results" / f"producer-{started.strftime('%Y%m%d-%H%M%S')}.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
