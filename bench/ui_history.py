"""UI benchmark of history (issue 40): the time control and "changes since".

Drives Debian's Chromium through Playwright against real ``feast-lineage ui``
servers (as bench/ui.py, whose helpers it uses):

* **as of, quickstart**: the quickstart's graph is open (warm: the page and
  its code loaded); the URL switches to ``as_of`` an instant (a different one
  each round, so the answer is never cached) and the figure is the time from
  the switch to the graph laid out and drawn again. Baseline in the same run:
  the same switch back to now (a graph the page holds: layout and drawing only).
* **changes since, 500 nodes**: a store of 500 datasets and jobs (painted on a
  canvas) whose second day of runs moves edges, adds jobs and changes
  schemas; the page opens ``?changes_since=`` the first day's end (warm: the
  second load in the same browser context) and the figure is navigation to
  the graph drawn with its changes (the graph answer and the server's
  ``/lineage/diff``, merged, laid out once). Baseline: the same page without
  ``changes_since`` (the current graph alone).

    .venv/bin/python -m bench.ui_history --rounds 5

The report goes to ``bench/results/ui-history-<time>.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

from bench.ingest import machine_details, short_commit, write_repo
from bench.ui import BENCH_DIR, CHROMIUM, CHROMIUM_ARGS, QUICKSTART, VIEWPORT, log, ui_server

TEAMS = 5
JOBS_PER_TEAM = 45
RAW_PER_TEAM = 10
NODES = TEAMS * (2 * JOBS_PER_TEAM + RAW_PER_TEAM)  # 500
DAY_ONE = datetime(2026, 11, 1, tzinfo=UTC)
DAY_TWO = DAY_ONE + timedelta(days=1)
TARGETS = {"as of": "≤ 500 ms warm", "changes since": "≤ 1,500 ms warm"}

SWITCH = """(url) => {
  const t0 = performance.now();
  window.history.pushState(null, "", url);
  window.dispatchEvent(new PopStateEvent("popstate"));
  return t0;
}"""


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def run_event(
    rng: random.Random, at: datetime, team: int, job: int, inputs: list[str], fields: int
) -> dict[str, Any]:
    namespace = f"warehouse://team-{team}"
    schema = {
        "fields": [
            {"name": f"col_{i}", "type": "int" if i % 3 else "string"} for i in range(fields)
        ]
    }
    return {
        "eventType": "COMPLETE",
        "eventTime": iso(at),
        "producer": "https://scheduler.example.com/openlineage-plugin/2.1",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
        "job": {"namespace": f"scheduler://team-{team}", "name": f"build_table_{job}"},
        "run": {"runId": str(uuid.UUID(int=rng.getrandbits(128), version=4))},
        "inputs": [{"namespace": namespace, "name": name} for name in inputs],
        "outputs": [
            {"namespace": namespace, "name": f"mart.table_{job}", "facets": {"schema": schema}}
        ],
    }


def history_events(seed: int = 11) -> list[dict[str, Any]]:
    """Day one: every job runs. Day two: a tenth read other tables, a tenth change their schema."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    for team in range(TEAMS):
        raw = [f"raw.table_{i}" for i in range(RAW_PER_TEAM)]
        for job in range(JOBS_PER_TEAM):
            pool = raw[: 2 + job // 10] + [f"mart.table_{j}" for j in range(max(0, job - 8), job)]
            inputs = rng.sample(pool, k=min(len(pool), rng.choice((1, 2, 3))))
            events.append(run_event(rng, DAY_ONE + timedelta(minutes=job), team, job, inputs, 4))
            if rng.random() < 0.1:
                moved = rng.sample(pool, k=min(len(pool), 2))
                events.append(run_event(rng, DAY_TWO + timedelta(minutes=job), team, job, moved, 4))
            elif rng.random() < 0.1:
                events.append(
                    run_event(rng, DAY_TWO + timedelta(minutes=job), team, job, inputs, 5)
                )
    return events


def wait_ready(url: str) -> None:
    """Until /readyz: the store's schema is up to date and the app takes events."""
    for _ in range(1200):
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"{url} never became ready")


def ready_after(page: Page, t0: float) -> float:
    page.wait_for_function(f"() => (window.__lineageTimings?.readyAt ?? 0) > {t0}", timeout=120_000)
    value: float = page.evaluate(f"window.__lineageTimings.readyAt - {t0}")
    return value


def switch_ms(page: Page, url: str) -> float:
    t0: float = page.evaluate(SWITCH, url)
    return ready_after(page, t0)


def load_ms(page: Page, url: str, painted: bool) -> float:
    page.goto(url)
    page.wait_for_selector(".canvas[data-state=ready]", timeout=120_000)
    if painted:
        page.wait_for_selector("canvas.overview:not([data-drawn='0'])")
    value: float = page.evaluate("window.__lineageTimings.readyAt")
    return value


def quickstart(browser: Any, rounds: int, work: Path) -> dict[str, list[float]]:
    repo = work / "quickstart"
    subprocess.run(
        [sys.executable, str(QUICKSTART), "setup", str(repo)], check=True, capture_output=True
    )
    figures: dict[str, list[float]] = {"as of": [], "now": []}
    with ui_server(repo) as url:
        wait_ready(url)
        subprocess.run(
            [sys.executable, str(QUICKSTART), "post-events", str(repo), url],
            check=True,
            capture_output=True,
        )
        runs = httpx.get(
            f"{url}/api/v1/lineage/openlineage/runs", params={"job_name": "train_driver_ranking"}
        ).json()
        first = min(runs["runs"], key=lambda run: run["started_at"])
        at = datetime.fromisoformat(first["ended_at_iso"].replace("Z", "+00:00"))
        page = browser.new_context(viewport=VIEWPORT).new_page()
        load_ms(page, url + "/", painted=False)
        for i in range(rounds):
            instant = (at + timedelta(milliseconds=i)).isoformat().replace("+00:00", "Z")
            figures["as of"].append(switch_ms(page, f"/?as_of={instant}"))
            figures["now"].append(switch_ms(page, "/"))
            as_of, now = figures["as of"][-1], figures["now"][-1]
            log(f"quickstart round {i + 1}: as of {as_of:.0f} ms, now {now:.0f} ms")
        page.context.close()
    return figures


def changes(browser: Any, rounds: int, work: Path) -> dict[str, list[float]]:
    repo = work / "history"
    write_repo(repo)
    figures: dict[str, list[float]] = {"changes since": [], "current": []}
    with ui_server(repo) as url:
        wait_ready(url)
        events = history_events()
        for start in range(0, len(events), 500):
            httpx.post(
                f"{url}/api/v1/lineage/batch", json=events[start : start + 500], timeout=300
            ).raise_for_status()
        since = iso(DAY_ONE + timedelta(hours=12))
        context = browser.new_context(viewport=VIEWPORT)
        page = context.new_page()
        for i in range(rounds + 1):  # the first round is cold: not counted
            diff = load_ms(page, f"{url}/?changes_since={since}", painted=True)
            now = load_ms(page, f"{url}/", painted=True)
            if i:
                figures["changes since"].append(diff)
                figures["current"].append(now)
                log(f"500 nodes round {i}: changes since {diff:.0f} ms, current {now:.0f} ms")
        context.close()
    return figures


def report(
    quick: dict[str, list[float]], big: dict[str, list[float]], rounds: int, load: str
) -> str:
    med = statistics.median
    q_as, q_now = med(quick["as of"]), med(quick["now"])
    c_diff, c_now = med(big["changes since"]), med(big["current"])
    machine = "; ".join(f"{k}: {v}" for k, v in machine_details())
    quick_row = (
        f"| quickstart: switch to as_of, redrawn (warm) | {q_as:,.0f} ms"
        f" | back to now: {q_now:,.0f} ms | {q_as / q_now:.2f} | {TARGETS['as of']} |"
    )
    big_row = (
        f"| {NODES} nodes: changes since, drawn (warm) | {c_diff:,.0f} ms"
        f" | current graph: {c_now:,.0f} ms | {c_diff / c_now:.2f} | {TARGETS['changes since']} |"
    )
    return "\n".join(
        [
            f"# UI history benchmark, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
            "",
            f"Commit {short_commit()}; {machine}; load average {load} at start;"
            f" {rounds} rounds (medians).",
            "",
            "| Measure | Median | Baseline (same run) | Ratio | Target |",
            "|---|---:|---:|---:|---|",
            quick_row,
            big_row,
            "",
            "Every round: "
            + ", ".join(f"{k} {[round(v) for v in vs]}" for k, vs in {**quick, **big}.items()),
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    args = parser.parse_args(argv)
    work = BENCH_DIR / "data" / f"ui-history-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    work.mkdir(parents=True)
    load = f"{os.getloadavg()[0]:.1f}"
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                quick = quickstart(browser, args.rounds, work)
                big = changes(browser, args.rounds, work)
            finally:
                browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report(quick, big, args.rounds, load)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"ui-history-{datetime.now(UTC):%Y%m%d-%H%M%S}.md"
    out.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
