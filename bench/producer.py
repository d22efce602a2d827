"""Producer benchmark: what lineage adds to `feast apply` and `feast materialize`.

It generates a feature repository of ``--views`` feature views (200 by
default) over ``--sources`` parquet files, with a SQL registry on SQLite, the
SQLite online store and the file offline store. Three arms, each run
``--reps`` times, rotating which goes first:

* **plain**: Feast with lineage off (``openlineage.enabled: false``): the
  baseline.
* **lineage**: feast-lineage with lineage on and the file transport.
* **feast's lineage** (Feast 0.60 and later): Feast's own emitter on, the
  same configuration read by plain ``feast``: the bar to beat.

Each arm is timed two ways:

* **CLI**: the real processes (``feast apply`` or ``feast-lineage apply``)
  on an empty registry (every object is new, so lineage reports all of
  them), then ``materialize`` of every view over the data's window. Wall
  time of each process, as a user sees it, and its CPU time (user +
  system), which other load on the machine disturbs less.
* **in-process**: ``feast.FeatureStore`` or ``feast_lineage.FeatureStore``
  ``apply`` of the same objects on an empty registry, and ``materialize`` of
  every view, timed inside one Python process (no interpreter start or
  imports: the lineage work alone).

It reports medians, the ratio lineage / plain (target: at most 1.10), the
ratio lineage / feast's lineage, and the events written, and writes the
report to ``bench/results/producer-<time>.md`` (a reference run's table then
goes into ``bench/RESULTS.md`` by hand).

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
    }
    (root / "feature_store.yaml.in").write_text(yaml.safe_dump(config))
    configure(root, lineage=True)
    return root


def configure(root: Path, lineage: bool) -> None:
    """The repository's feature_store.yaml with lineage on (file transport) or off."""
    config = yaml.safe_load((root / "feature_store.yaml.in").read_text())
    config["openlineage"] = {
        "enabled": lineage,
        "transport_type": "file",
        "additional_config": {"log_file_path": str(root / "events.jsonl")},
    }
    (root / "feature_store.yaml").write_text(yaml.safe_dump(config))


@dataclass(frozen=True)
class Arm:
    """One way of running Feast: which tool, with lineage on or off."""

    name: str
    tool: str  # the command: feast or feast-lineage
    lineage: bool  # openlineage.enabled in feature_store.yaml


PLAIN = Arm("plain", "feast", lineage=False)
OURS = Arm("lineage", "feast-lineage", lineage=True)
FEASTS = Arm("feast's lineage", "feast", lineage=True)


def feast_has_lineage() -> bool:
    """Whether this Feast ships its own emitter (0.60 and later)."""
    from importlib.util import find_spec

    return find_spec("feast.openlineage") is not None


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
    runs: dict[str, list[Took]] = field(default_factory=dict)
    events: list[int] = field(default_factory=list)

    def add(self, arm: Arm, took: Took) -> None:
        self.runs.setdefault(arm.name, []).append(took)

    def median(self, arm: Arm, measure: str) -> float:
        return float(statistics.median(getattr(t, measure) for t in self.runs[arm.name]))

    def ratio(self, arm: Arm, base: Arm, measure: str) -> float:
        return self.median(arm, measure) / self.median(base, measure)


def rotated(arms: list[Arm], rep: int) -> list[Arm]:
    k = rep % len(arms)
    return arms[k:] + arms[:k]


def cli_round(root: Path, arms: list[Arm], rep: int, apply: Timings, materialize: Timings) -> None:
    for arm in rotated(arms, rep):
        reset(root)
        configure(root, arm.lineage)
        took_apply = run(arm.tool, root, "apply")
        after_apply = events(root)
        took_mat = run(arm.tool, root, "materialize", *WINDOW)
        apply.add(arm, took_apply)
        materialize.add(arm, took_mat)
        if arm is OURS:
            apply.events.append(after_apply)
            materialize.events.append(events(root) - after_apply)
        log(
            f"  {arm.name}: apply {took_apply.wall:.2f}s (cpu {took_apply.cpu:.2f}s), "
            f"materialize {took_mat.wall:.2f}s (cpu {took_mat.cpu:.2f}s)"
        )


def in_process(root: Path, arms: list[Arm], reps: int, apply: Timings, mat: Timings) -> None:
    import feast

    import feast_lineage

    sys.path.insert(0, str(root))
    import bench_features  # type: ignore[import-not-found]

    objects = [bench_features.driver, *bench_features.SOURCES, *bench_features.VIEWS]
    start, end = (datetime.fromisoformat(t).replace(tzinfo=UTC) for t in WINDOW)
    classes: dict[str, Callable[..., Any]] = {
        "feast": feast.FeatureStore,
        "feast-lineage": feast_lineage.FeatureStore,
    }
    for rep in range(reps):
        for arm in rotated(arms, rep):
            reset(root)
            configure(root, arm.lineage)
            store = classes[arm.tool](repo_path=str(root))
            # Feast's emitter writes its files to the working directory.
            with (
                open(os.devnull, "w") as quiet,
                contextlib.redirect_stdout(quiet),
                contextlib.chdir(root),
            ):
                t0, c0 = time.perf_counter(), time.process_time()
                store.apply(objects)
                t1, c1 = time.perf_counter(), time.process_time()
                applied = Took(t1 - t0, c1 - c0)
                after_apply = events(root)
                t1, c1 = time.perf_counter(), time.process_time()
                store.materialize(start, end)
                t2, c2 = time.perf_counter(), time.process_time()
            apply.add(arm, applied)
            mat.add(arm, Took(t2 - t1, c2 - c1))
            if arm is OURS:
                apply.events.append(after_apply)
                mat.events.append(events(root) - after_apply)
            log(
                f"  in-process {arm.name}: apply {applied.wall:.2f}s "
                f"(cpu {applied.cpu:.2f}s), materialize {t2 - t1:.2f}s (cpu {c2 - c1:.2f}s)"
            )


def row(label: str, t: Timings, arms: list[Arm]) -> str:
    cells = [f"{t.median(arm, measure):.2f} s" for measure in ("wall", "cpu") for arm in arms]
    ratios = [f"{t.ratio(OURS, PLAIN, m):.3f}" for m in ("wall", "cpu")]
    if FEASTS in arms:
        ratios += [f"{t.ratio(OURS, FEASTS, m):.3f}" for m in ("wall", "cpu")]
    best = min(t.ratio(OURS, PLAIN, "wall"), t.ratio(OURS, PLAIN, "cpu"))
    verdict = "ok" if best <= TARGET_RATIO else "OVER TARGET"
    return f"| {label} | {' | '.join(cells)} | {' | '.join(ratios)} | {verdict} |"


def feast_version() -> str:
    from importlib.metadata import version

    return version("feast")


def report(
    args: argparse.Namespace, arms: list[Arm], results: dict[str, Timings], started: datetime
) -> str:
    lines = [
        f"### Producer run {started.strftime('%Y-%m-%d %H:%M UTC')}",
        "",
        f"`python -m bench.producer --views {args.views} --sources {args.sources} "
        f"--reps {args.reps}`: {args.views} feature views over {args.sources} parquet files "
        f"({DRIVERS} drivers x {HOURS} hours, {FEATURES} features), SQL registry on SQLite, "
        "SQLite online store, file offline store; lineage with the file transport. Medians "
        f"of {args.reps} runs each, rotating which arm goes first, of the wall time and of "
        "the CPU time (user + system of the process, less disturbed by other load). "
        f"Arms: {', '.join(arm.name for arm in arms)} (Feast {feast_version()}). "
        f"Target: lineage / plain <= {TARGET_RATIO:.2f}.",
        "",
        "| Operation | "
        + " | ".join(f"{m}, {arm.name}" for m in ("wall", "CPU") for arm in arms)
        + " | wall / plain | CPU / plain"
        + (" | wall / feast's | CPU / feast's" if FEASTS in arms else "")
        + " | |",
        "| --- " * (2 * len(arms) + (6 if FEASTS in arms else 4)) + "|",
    ]
    lines += [row(label, timings, arms) for label, timings in results.items() if timings.runs]
    cli_apply, cli_mat = results["CLI apply"], results["CLI materialize"]
    if not cli_apply.events:  # in-process only
        cli_apply, cli_mat = results["in-process apply"], results["in-process materialize"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines += [
        "",
        f"Events per lineage run: apply {sorted(set(cli_apply.events))}, "
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
    parser.add_argument("--only", choices=["cli", "in-process"], help="time one way only")
    parser.add_argument(
        "--no-feasts", action="store_true", help="leave out the arm of Feast's own emitter"
    )
    args = parser.parse_args()

    started = datetime.now(tz=UTC)
    root = BENCH_DIR / "data" / f"producer-{started.strftime('%Y%m%d-%H%M%S')}"
    write_repo(root, args.views, args.sources)
    log(f"repository with {args.views} views in {root}")
    arms = [PLAIN, OURS] + ([FEASTS] if feast_has_lineage() and not args.no_feasts else [])
    results = {
        "CLI apply": Timings(),
        "CLI materialize": Timings(),
        "in-process apply": Timings(),
        "in-process materialize": Timings(),
    }
    try:
        if args.only != "in-process":
            for rep in range(args.reps):
                log(f"CLI round {rep + 1}/{args.reps}")
                cli_round(root, arms, rep, results["CLI apply"], results["CLI materialize"])
        if args.only != "cli":
            log("in-process rounds")
            in_process(
                root,
                arms,
                args.reps,
                results["in-process apply"],
                results["in-process materialize"],
            )
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    text = report(args, arms, results, started)
    print(text)
    out = BENCH_DIR / "results" / f"producer-{started.strftime('%Y%m%d-%H%M%S')}.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
