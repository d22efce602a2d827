"""UI benchmark of the column view (issue 25), in headless Chromium.

A store of 13 datasets of 50 columns each, three levels upstream and three
downstream of the dataset ``D`` (two datasets per level, one job per step):
every column comes from the same column of each input (IDENTITY), column
``c00`` also from every column of the first input (AGGREGATION), and the
first input's ``c01`` filters every output (a dataset-level INDIRECT input).
Tracing ``D.c00`` both ways at depth 3 draws every dataset box, 263
columns on the path and 564 edges, with D's 49 other columns folded.

The figure is the time from navigation to the column view drawn and fitted
(``[data-testid=column-ready]``), cold (a fresh browser context) and warm
(the same page loaded again), against an empty page load (``/healthz``'s
load event) in the same context right before, and against the dataset
graph focused on D at depth 3 (the same neighbourhood as dataset nodes):
the same-run baselines. The
report goes to ``bench/results/ui-columns-<time>.md``; a reference run's
table goes into ``bench/RESULTS.md`` by hand.

    nice -n 10 .venv/bin/python -m bench.ui_columns --rounds 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
from playwright.sync_api import Page, sync_playwright

from bench.ingest import machine_details, short_commit, write_repo
from bench.ui import (
    BENCH_DIR,
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    empty_page_ms,
    log,
    ui_server,
)

NAMESPACE = "bench://columns"
COLUMNS = [f"c{i:02d}" for i in range(50)]
LEVELS = range(-3, 4)
PRODUCER = "https://bench.example.com/columns"
FACET = "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json"
TARGET = "≤ 1,000 ms"


def datasets_at(level: int) -> list[str]:
    return ["D"] if level == 0 else [f"L{level:+d}{side}" for side in "ab"]


def inputs_of(first: str, others: list[str], column: str) -> list[dict[str, Any]]:
    def field(name: str, field_name: str, subtype: str) -> dict[str, Any]:
        return {
            "namespace": NAMESPACE,
            "name": name,
            "field": field_name,
            "transformations": [{"type": "DIRECT", "subtype": subtype}],
        }

    out = [field(name, column, "IDENTITY") for name in [first, *others]]
    if column == COLUMNS[0]:
        out += [field(first, c, "AGGREGATION") for c in COLUMNS[1:]]
    return out


def output(name: str, sources: list[str]) -> dict[str, Any]:
    fields = {
        column: {"inputFields": inputs_of(sources[0], sources[1:], column)} for column in COLUMNS
    }
    lineage = {
        "_producer": PRODUCER,
        "_schemaURL": FACET,
        "fields": fields,
        "dataset": [
            {
                "namespace": NAMESPACE,
                "name": sources[0],
                "field": COLUMNS[1],
                "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
            }
        ],
    }
    return {"namespace": NAMESPACE, "name": name, "facets": {**schema(), "columnLineage": lineage}}


def schema() -> dict[str, Any]:
    return {
        "schema": {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json",
            "fields": [{"name": c, "type": "DOUBLE"} for c in COLUMNS],
        }
    }


def events() -> list[dict[str, Any]]:
    """One COMPLETE run per step from one level to the next."""
    out = []
    for level in LEVELS[:-1]:
        sources, targets = datasets_at(level), datasets_at(level + 1)
        out.append(
            {
                "eventType": "COMPLETE",
                "eventTime": "2026-11-01T00:00:00Z",
                "producer": PRODUCER,
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
                "job": {"namespace": "bench://jobs", "name": f"step{level:+d}"},
                "run": {"runId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"columns/{level}"))},
                "inputs": [
                    {"namespace": NAMESPACE, "name": name, "facets": schema()} for name in sources
                ],
                "outputs": [output(name, sources) for name in targets],
            }
        )
    return out


def column_view_ms(page: Page, url: str) -> float:
    query = urlencode({"col_ns": NAMESPACE, "col_ds": "D", "col": COLUMNS[0], "depth": 3})
    page.goto(f"{url}/?{query}")
    page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=120_000)
    value: float = page.evaluate("performance.now()")
    return value


def focus_view_ms(page: Page, url: str) -> float:
    """The same neighbourhood in the dataset graph: D focused, depth 3 (the baseline view)."""
    query = urlencode({"focus_type": "dataset", "focus_ns": NAMESPACE, "focus": "D", "depth": 3})
    page.goto(f"{url}/?{query}")
    page.wait_for_selector(".canvas[data-state=ready]", timeout=120_000)
    page.wait_for_selector(".react-flow__node .lnode")
    value: float = page.evaluate("window.__lineageTimings.readyAt")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    args = parser.parse_args(argv)
    work = BENCH_DIR / "data" / f"ui-columns-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    work.mkdir(parents=True)
    load = f"{os.getloadavg()[0]:.1f}"
    figures: dict[str, list[float]] = {
        "empty": [],
        "cold": [],
        "empty warm": [],
        "warm": [],
        "focus view warm": [],
    }
    shape: dict[str, int] = {}
    try:
        repo = write_repo(work / "repo")
        with ui_server(repo) as url, sync_playwright() as driver:
            httpx.post(f"{url}/api/v1/lineage", json=events(), timeout=120).raise_for_status()
            answer = httpx.get(
                f"{url}/api/v1/lineage/openlineage/columns",
                params={"namespace": NAMESPACE, "name": "D", "field": COLUMNS[0], "depth": 3},
                timeout=60,
            ).json()
            boxes = {(n["namespace"], n["name"]) for n in answer["nodes"]}
            shape = {"datasets": len(boxes), "columns": len(answer["nodes"])}
            shape["edges"] = len(answer["edges"])
            log(f"trace of D.c00: {shape}")
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for round_ in range(args.rounds):
                context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
                page = context.new_page()
                figures["empty"].append(empty_page_ms(page, url))
                figures["cold"].append(column_view_ms(page, url))
                figures["empty warm"].append(empty_page_ms(page, url))
                figures["warm"].append(column_view_ms(page, url))
                figures["focus view warm"].append(focus_view_ms(page, url))
                context.close()
                cold, warm = figures["cold"][-1], figures["warm"][-1]
                log(f"  round {round_ + 1}: cold {cold:.0f} ms, warm {warm:.0f} ms")
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(figures, shape, args.rounds, load)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"ui-columns-{datetime.now(UTC):%Y%m%d-%H%M%S}.md"
    out.write_text(text)
    print(text)
    log(f"report: {out}")
    return 0


def report(figures: dict[str, list[float]], shape: dict[str, int], rounds: int, load: str) -> str:
    commit = short_commit()
    med = statistics.median
    lines = [
        f"# Column view benchmark {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"Commit {commit}; {rounds} rounds, medians; headless Chromium "
        f"({VIEWPORT['width']}x{VIEWPORT['height']}, no GPU); 1-minute load before: {load}.",
        f"The trace: {shape.get('datasets')} datasets, {shape.get('columns')} columns, "
        f"{shape.get('edges')} edges (a 50-column dataset, depth 3 both ways).",
        "",
        "| figure | median | baseline (same run) | ratio | target |",
        "|---|---:|---:|---:|---|",
    ]
    for name, key, base in (("cold", "cold", "empty"), ("warm", "warm", "empty warm")):
        value, floor = med(figures[key]), med(figures[base])
        lines.append(
            f"| column view drawn, {name} | {value:,.0f} ms | empty page {floor:,.0f} ms "
            f"| {value / floor:.1f} | {TARGET} |"
        )
    value, floor = med(figures["warm"]), med(figures["focus view warm"])
    lines.append(
        f"| column view drawn, warm, against the dataset graph focused on D (depth 3) "
        f"| {value:,.0f} ms | focus view {floor:,.0f} ms | {value / floor:.1f} | |"
    )
    lines += [
        "",
        "Baselines: an empty page load is `/healthz` in the same browser context right "
        "before; the focus view draws the same neighbourhood as dataset nodes (warm).",
        "",
        "Every sample:",
        "",
    ]
    lines += [f"- {k}: " + ", ".join(f"{v:.0f}" for v in vs) for k, vs in figures.items()]
    lines += ["", "Machine:", ""]
    lines += [f"- {key}: {value}" for key, value in machine_details()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
