"""UI benchmark: how fast the web UI draws a graph, in headless Chromium.

It starts the real ``feast-lineage ui`` server twice and drives Debian's
Chromium through Playwright (as tests/ui does):

* **quickstart**: the quickstart's repository (``examples/quickstart``, the
  graph of about 25 nodes ``scripts/demo.sh`` shows). *Cold* is a fresh browser context
  (empty cache), *warm* the same page loaded again. The figure is the time
  from navigation to the graph laid out and drawn (``window.__lineageTimings
  .readyAt``), with its ratio to an empty page load in the same context
  (``/healthz``, the page's load event) measured right before it.
* **5,000 nodes**: a store of 25 teams of pipelines (5,000 datasets and jobs,
  the most one graph page of the API holds, which is what the UI loads): time
  to the graph drawn (cold and warm), time for Fit to draw the whole graph
  as the overview, and frames per second while panning, zoomed in (nodes
  with text) and zoomed out (the overview), against the frames per second
  of the same page doing nothing (``requestAnimationFrame`` on an idle page).

Each measure is repeated ``--rounds`` times and the median reported. The
report goes to ``bench/results/ui-<time>.md``; a reference run's table goes
into ``bench/RESULTS.md`` by hand.

    .venv/bin/python -m bench.ui --rounds 5
    .venv/bin/python -m bench.ui --rounds 3 --baseline ../main/.venv/bin/feast-lineage

With ``--baseline`` another build (another checkout's installed
``feast-lineage``, serving its own web UI) is measured in the same run on the
same store, rounds interleaved, and the report compares the two.
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
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, Page, sync_playwright

from bench.ingest import free_port, machine_details, short_commit, write_repo

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
QUICKSTART = ROOT / "examples" / "quickstart" / "quickstart.py"
CHROMIUM = Path(os.environ.get("FEAST_LINEAGE_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
VIEWPORT = {"width": 1600, "height": 900}
TEAMS = 25
JOBS_PER_TEAM = 95
RAW_PER_TEAM = 10
LARGE_NODES = TEAMS * (2 * JOBS_PER_TEAM + RAW_PER_TEAM)  # 5,000
# Graphs of more nodes are painted on a <canvas> (BIG_GRAPH in ui/src/graph/viewport.ts).
PAINTED_ABOVE = 400
TARGETS = {
    "quickstart warm": "≤ 1,000 ms",
    "quickstart cold": "≤ 1,500 ms",
    "5,000 nodes drawn": "≤ 3,000 ms",
    "panning": "≥ 30 fps",
}


def log(msg: str) -> None:
    print(f"[{datetime.now().strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


@contextmanager
def ui_server(repo: Path, exe: Path | None = None) -> Iterator[str]:
    """``feast-lineage ui`` on ``repo``: this checkout's, or ``exe`` (another build's)."""
    port = free_port()
    exe = exe or Path(sys.executable).parent / "feast-lineage"
    log_path = repo / f"ui-{port}.log"
    with open(log_path, "ab") as out:
        process = subprocess.Popen(
            [str(exe), "-c", str(repo), "ui", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start: see {log_path}")
            time.sleep(0.3)
        # The registry opens in the background: let it finish before measuring.
        httpx.get(f"{url}/api/v1/lineage/registry/all", timeout=600)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


def large_events(seed: int = 7) -> list[dict[str, Any]]:
    """One COMPLETE run per job: teams of pipelines that read each other's tables."""
    rng = random.Random(seed)
    events: list[dict[str, Any]] = []
    outputs: list[list[tuple[str, str]]] = []
    for team in range(TEAMS):
        namespace = f"warehouse://team-{team}"
        raw = [(namespace, f"raw.table_{i}") for i in range(RAW_PER_TEAM)]
        made: list[tuple[str, str]] = []
        for job in range(JOBS_PER_TEAM):
            pool = raw[: 2 + job // 10] + made[-12:]
            inputs = rng.sample(pool, k=min(len(pool), rng.choice((1, 2, 2, 3))))
            if job < RAW_PER_TEAM and raw[job] not in inputs:
                inputs.append(raw[job])
            if outputs and rng.random() < 0.08:
                inputs.append(rng.choice(rng.choice(outputs)))
            target = (namespace, f"mart.table_{job}")
            made.append(target)
            events.append(
                {
                    "eventType": "COMPLETE",
                    "eventTime": "2026-11-01T00:00:00Z",
                    "producer": "https://scheduler.example.com/openlineage-plugin/2.1",
                    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json",
                    "job": {"namespace": f"scheduler://team-{team}", "name": f"build_table_{job}"},
                    "run": {"runId": str(uuid.UUID(int=rng.getrandbits(128), version=4))},
                    "inputs": [{"namespace": ns, "name": name} for ns, name in inputs],
                    "outputs": [{"namespace": target[0], "name": target[1]}],
                }
            )
        outputs.append(made)
    return events


def empty_page_ms(page: Page, url: str) -> float:
    page.goto(f"{url}/healthz")
    value: float = page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    return value


def graph_ready_ms(page: Page, url: str, nodes: int | None, painted: bool = True) -> float:
    """Navigation to the graph drawn; ``nodes``: how many it has (None: any).

    ``painted``: the build paints large graphs on a canvas (a baseline from
    before that draws DOM nodes).
    """
    page.goto(url)
    count = f"[data-nodes='{nodes}']" if nodes is not None else ""
    page.wait_for_selector(f".canvas[data-state=ready]{count}", timeout=120_000)
    if painted and nodes is not None and nodes > PAINTED_ABOVE:  # on a canvas, text included
        page.wait_for_selector("canvas.overview:not([data-drawn='0'])")
    else:  # DOM nodes
        page.wait_for_selector(".react-flow__node .lnode")
    value: float = page.evaluate("window.__lineageTimings.readyAt")
    return value


FRAME_RECORDER = """() => {
  window.__frames = [];
  let last = performance.now();
  const tick = (now) => {
    window.__frames.push(now - last);
    last = now;
    if (window.__recording) requestAnimationFrame(tick);
  };
  window.__recording = true;
  requestAnimationFrame(tick);
}"""


def fps(page: Page, action: Callable[[Page], None]) -> float:
    page.evaluate(FRAME_RECORDER)
    action(page)
    page.evaluate("window.__recording = false")
    frames: list[float] = page.evaluate("window.__frames")[1:]
    mean = sum(frames) / len(frames) if frames else 0.0
    return 1000 / mean if mean else 0.0


def drag(page: Page, dx: int, dy: int, steps: int = 40) -> None:
    page.mouse.move(700, 450)
    page.mouse.down()
    for i in range(1, steps + 1):
        page.mouse.move(700 + dx * i / steps, 450 + dy * i / steps)
    page.mouse.up()


def pan(page: Page) -> None:
    drag(page, 400, 200)
    drag(page, -400, -200)


def idle(page: Page) -> None:
    page.wait_for_timeout(1500)


def builds(baseline: Path | None) -> list[tuple[str, Path | None]]:
    """(figure prefix, executable): this checkout's build, and the baseline's if given."""
    return [("", None), *([("base ", baseline)] if baseline else [])]


def quickstart(
    browser: Browser, rounds: int, work: Path, baseline: Path | None
) -> dict[str, list[float]]:
    repo = work / "quickstart"
    log("setting up the quickstart repository")
    subprocess.run(
        [sys.executable, str(QUICKSTART), "setup", str(repo)], check=True, capture_output=True
    )
    figures: dict[str, list[float]] = defaultdict(list)
    with ExitStack() as stack:
        urls = [
            (prefix, stack.enter_context(ui_server(repo, exe))) for prefix, exe in builds(baseline)
        ]
        subprocess.run(
            [sys.executable, str(QUICKSTART), "post-events", str(repo), urls[0][1]],
            check=True,
            capture_output=True,
        )
        for round_ in range(rounds):
            # Builds take turns going first.
            for prefix, url in urls[round_ % len(urls) :] + urls[: round_ % len(urls)]:
                context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
                page = context.new_page()
                figures[prefix + "empty"].append(empty_page_ms(page, url))
                # The quickstart's node count changes with it (25, then 27 with training frames).
                figures[prefix + "cold"].append(graph_ready_ms(page, url, None))
                figures[prefix + "empty warm"].append(empty_page_ms(page, url))
                figures[prefix + "warm"].append(graph_ready_ms(page, url, None))
                context.close()
                cold, warm = figures[prefix + "cold"][-1], figures[prefix + "warm"][-1]
                log(
                    f"  {prefix}quickstart round {round_ + 1}: "
                    f"cold {cold:.0f} ms, warm {warm:.0f} ms"
                )
    return dict(figures)


def large(
    browser: Browser, rounds: int, work: Path, baseline: Path | None
) -> dict[str, list[float]]:
    repo = write_repo(work / "large")
    figures: dict[str, list[float]] = defaultdict(list)
    with ExitStack() as stack:
        urls = [
            (prefix, stack.enter_context(ui_server(repo, exe))) for prefix, exe in builds(baseline)
        ]
        url = urls[0][1]
        events = large_events()
        log(f"filling the store: {len(events):,} events, {LARGE_NODES:,} nodes")
        for start in range(0, len(events), 500):
            answer = httpx.post(
                f"{url}/api/v1/lineage/batch", json=events[start : start + 500], timeout=120
            )
            answer.raise_for_status()
        total = httpx.get(f"{url}/api/v1/lineage/openlineage/graph?limit=1", timeout=60).json()[
            "total_nodes"
        ]
        assert total == LARGE_NODES, total
        for round_ in range(rounds):
            for prefix, url in urls[round_ % len(urls) :] + urls[: round_ % len(urls)]:
                painted = prefix == ""
                context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
                page = context.new_page()
                figures[prefix + "empty"].append(empty_page_ms(page, url))
                figures[prefix + "cold"].append(graph_ready_ms(page, url, LARGE_NODES, painted))
                figures[prefix + "warm"].append(graph_ready_ms(page, url, LARGE_NODES, painted))
                figures[prefix + "idle fps"].append(fps(page, idle))
                figures[prefix + "pan near fps"].append(fps(page, pan))
                started = page.evaluate("performance.now()")
                page.locator(".react-flow__controls-fitview").click()
                page.wait_for_selector(f"canvas.overview[data-drawn='{LARGE_NODES}']")
                figures[prefix + "fit"].append(page.evaluate("performance.now()") - started)
                figures[prefix + "pan overview fps"].append(fps(page, pan))
                context.close()
                log(
                    f"  {prefix}5,000 nodes round {round_ + 1}: "
                    f"cold {figures[prefix + 'cold'][-1]:.0f} ms, "
                    f"pan {figures[prefix + 'pan near fps'][-1]:.0f} / "
                    f"{figures[prefix + 'pan overview fps'][-1]:.0f} fps"
                )
    return dict(figures)


def med(values: list[float] | None) -> float:
    return statistics.median(values) if values else float("nan")


def report(
    quick: dict[str, list[float]],
    big: dict[str, list[float]],
    rounds: int,
    load: str,
    baseline: Path | None = None,
) -> str:
    now = datetime.now(UTC)
    commit = short_commit()
    lines = [
        f"# UI benchmark {now:%Y-%m-%d %H:%M} UTC",
        "",
        f"Commit {commit}; {rounds} rounds, medians; headless Chromium "
        f"({VIEWPORT['width']}x{VIEWPORT['height']}, no GPU); 1-minute load before: {load}.",
        "",
        "| figure | median | baseline (same run) | ratio | target |",
        "|---|---:|---:|---:|---|",
    ]

    def row(name: str, value: float, base: float, unit: str, target: str) -> None:
        if value != value:  # not measured (--only)
            return
        lines.append(
            f"| {name} | {value:,.0f} {unit} | {base:,.0f} {unit} | {value / base:.1f} | {target} |"
        )

    row(
        "quickstart graph, cold",
        med(quick.get("cold")),
        med(quick.get("empty")),
        "ms",
        TARGETS["quickstart cold"],
    )
    row(
        "quickstart graph, warm",
        med(quick.get("warm")),
        med(quick.get("empty warm")),
        "ms",
        TARGETS["quickstart warm"],
    )
    row(
        "5,000 nodes drawn, cold",
        med(big.get("cold")),
        med(big.get("empty")),
        "ms",
        TARGETS["5,000 nodes drawn"],
    )
    row(
        "5,000 nodes drawn, warm",
        med(big.get("warm")),
        med(big.get("empty")),
        "ms",
        TARGETS["5,000 nodes drawn"],
    )
    lines.append(
        f"| 5,000 nodes: Fit draws the whole overview | {med(big.get('fit')):,.0f} ms | | | |"
    )
    row(
        "5,000 nodes: panning zoomed in",
        med(big.get("pan near fps")),
        med(big.get("idle fps")),
        "fps",
        TARGETS["panning"],
    )
    row(
        "5,000 nodes: panning the overview",
        med(big.get("pan overview fps")),
        med(big.get("idle fps")),
        "fps",
        TARGETS["panning"],
    )
    if baseline:
        lines += [
            "",
            f"This build against the baseline build (`{baseline}`), on the same store, "
            "rounds interleaved (builds take turns going first); ratio: this / baseline.",
            "",
            "| figure | this build | baseline build | ratio |",
            "|---|---:|---:|---:|",
        ]
        for name, figures, key, unit in [
            ("quickstart graph, cold", quick, "cold", "ms"),
            ("quickstart graph, warm", quick, "warm", "ms"),
            ("5,000 nodes drawn, cold", big, "cold", "ms"),
            ("5,000 nodes drawn, warm", big, "warm", "ms"),
            ("5,000 nodes: Fit draws the whole overview", big, "fit", "ms"),
            ("5,000 nodes: panning zoomed in", big, "pan near fps", "fps"),
            ("5,000 nodes: panning the overview", big, "pan overview fps", "fps"),
        ]:
            ours, theirs = med(figures.get(key)), med(figures.get("base " + key))
            if ours == ours and theirs == theirs:
                lines.append(
                    f"| {name} | {ours:,.0f} {unit} | {theirs:,.0f} {unit} | {ours / theirs:.2f} |"
                )
    lines += [
        "",
        "Baselines: an empty page load is `/healthz` in the same browser context "
        "right before (cold: first visit; warm: after the graph's visit); frames per "
        "second are against the same page idle.",
        "",
        "Every sample:",
        "",
    ]
    for name, values in [
        *(("quickstart " + k, v) for k, v in quick.items()),
        *(("5,000 " + k, v) for k, v in big.items()),
    ]:
        lines.append(f"- {name}: " + ", ".join(f"{v:.0f}" for v in values))
    lines += ["", "Machine:", ""]
    lines += [f"- {key}: {value}" for key, value in machine_details()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out-dir", type=Path, default=BENCH_DIR / "results")
    parser.add_argument("--keep", action="store_true", help="keep bench/data/ui-<time>/")
    parser.add_argument(
        "--only", choices=("quickstart", "large"), help="measure one of the two graphs only"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="another build's feast-lineage executable (e.g. a main checkout's"
        " .venv/bin/feast-lineage), measured in the same run, rounds interleaved",
    )
    args = parser.parse_args(argv)
    work = BENCH_DIR / "data" / f"ui-{datetime.now(UTC):%Y%m%d-%H%M%S}"
    work.mkdir(parents=True)
    load = f"{os.getloadavg()[0]:.1f}"
    try:
        with sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                quick = (
                    quickstart(browser, args.rounds, work, args.baseline)
                    if args.only != "large"
                    else {}
                )
                big = (
                    large(browser, args.rounds, work, args.baseline)
                    if args.only != "quickstart"
                    else {}
                )
            finally:
                browser.close()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    text = report(quick, big, args.rounds, load, args.baseline)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    out = args.out_dir / f"ui-{datetime.now(UTC):%Y%m%d-%H%M%S}.md"
    out.write_text(text)
    print(text)
    log(f"report: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
