"""The web UI's end-to-end fixtures: the quickstart's data, real servers, Chromium.

The quickstart repository is built once per session by the same script
``scripts/demo.sh`` runs (examples/quickstart/quickstart.py): Feast applies,
materializes and retrieves through feast_lineage, then a real
``feast-lineage ui`` process receives the Airflow, dbt and Spark events.
Playwright drives Debian's Chromium (/usr/bin/chromium, installed by
scripts/system-deps.sh); it never downloads a browser. Screenshots go to
test-artifacts/ui/. The accessibility checks run axe-core, which
``npm ci`` installs into ui/node_modules (a devDependency of the UI), injected
into the page: no network.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Error,
    Locator,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

from feast_lineage.consumer.routes.ui import WEB_UI_DIR, web_ui_built
from tests.postgres import free_port
from tests.server_process import ServerProcess, wait_ready

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart" / "quickstart.py"
ARTIFACTS = ROOT / "test-artifacts" / "ui"
CHROMIUM = Path(os.environ.get("FEAST_LINEAGE_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1600, "height": 900}
AXE_JS = ROOT / "ui" / "node_modules" / "axe-core" / "axe.min.js"
# What the accessibility check fails on: axe's two worst impacts.
AXE_FAILING = ("serious", "critical")
# Assertions wait this long (ms) for the page: a busy machine runs other tests too.
expect.set_options(timeout=15_000)


def run_quickstart(*args: str, timeout: float = 420) -> None:
    result = subprocess.run(
        [sys.executable, str(QUICKSTART), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, f"quickstart {args[0]} failed:\n{result.stdout}\n{result.stderr}"


@contextmanager
def ui_server(repo: Path, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """A real ``feast-lineage ui`` process on a free port."""
    port = free_port()
    log_path = repo / f"ui-{port}.log"
    cmd = [sys.executable, "-m", "feast_lineage.cli", "-c", str(repo), "ui", "--port", str(port)]
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    server = ServerProcess(process, f"http://127.0.0.1:{port}", log_path)
    try:
        wait_ready(server, timeout=90)
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def quickstart_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("quickstart") / "repo"
    run_quickstart("setup", str(repo))
    return repo


@pytest.fixture(scope="session")
def server(quickstart_repo: Path) -> Iterator[ServerProcess]:
    """The quickstart's server, with the other producers' events posted."""
    with ui_server(quickstart_repo) as running:
        run_quickstart("post-events", str(quickstart_repo), running.url, timeout=60)
        yield running


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    if not web_ui_built():
        pytest.fail(f"the web UI is not built ({WEB_UI_DIR}): run ./scripts/bootstrap.sh")
    if not CHROMIUM.exists() or shutil.which(str(CHROMIUM)) is None:
        pytest.fail(f"{CHROMIUM} is missing: run ./scripts/system-deps.sh (Debian's chromium)")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield chromium
    chromium.close()


class PageErrors:
    """JavaScript errors a page raised, and console errors (not failed fetches)."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and "Failed to load resource" not in message.text:
            self.errors.append(message.text)

    def on_page_error(self, error: Error) -> None:
        self.errors.append(f"{error.name}: {error.message}")


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page (own cookies and storage) that fails the test on a JavaScript error."""
    context = browser.new_context(viewport=VIEWPORT)  # type: ignore[arg-type]
    opened = context.new_page()
    errors = PageErrors()
    opened.on("console", errors.on_console)
    opened.on("pageerror", errors.on_page_error)
    opened.set_default_timeout(20_000)
    yield opened
    context.close()
    assert not errors.errors, f"the page logged errors: {errors.errors}"


@pytest.fixture
def shoot() -> Callable[[Page, str], Path]:
    """Save a screenshot under test-artifacts/ui/ and return its path."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)

    def take(target: Page, name: str) -> Path:
        path = ARTIFACTS / f"{name}.png"
        target.screenshot(path=str(path))
        return path

    return take


def axe_violations(target: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now (WCAG 2.2 AA rules)."""
    if not AXE_JS.is_file():
        pytest.fail(f"{AXE_JS} is missing: run ./scripts/bootstrap.sh (npm ci installs axe-core)")
    target.add_script_tag(path=str(AXE_JS))
    found: list[dict[str, Any]] = target.evaluate(
        """async () => {
            const result = await axe.run(document, { resultTypes: ["violations"] });
            return result.violations.map((v) => ({
                id: v.id,
                impact: v.impact,
                help: v.help,
                nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
            }));
        }"""
    )
    return [v for v in found if v["impact"] in AXE_FAILING]


def wait_graph(target: Page, **expect: Any) -> None:
    """Wait until the lineage canvas has laid out and drawn its graph."""
    target.wait_for_selector(".canvas[data-state=ready]", timeout=30_000)
    target.wait_for_function(
        "() => document.querySelectorAll('.react-flow__node').length > 0"
        " && document.querySelectorAll('.react-flow__edge').length > 0"
    )
    if "nodes" in expect:
        target.wait_for_function(
            f"() => document.querySelector('.canvas').dataset.nodes === '{expect['nodes']}'"
        )


def steady(target: Locator, *, timeout_s: float = 15) -> Locator:
    """Wait until ``target`` stops moving (the graph fits and zooms after it draws)."""
    last = None
    for _ in range(int(timeout_s * 10)):
        box = target.bounding_box()
        if box is not None and box == last:
            return target
        last = box
        target.page.wait_for_timeout(100)
    raise AssertionError(f"{target} kept moving for {timeout_s} s")


def node_labels(target: Page) -> list[str]:
    """The names of the graph's nodes (in full: a long one is drawn shortened)."""
    labels: list[str] = target.eval_on_selector_all(
        ".react-flow__node .lnode", "els => els.map(e => e.dataset.label)"
    )
    return labels


def node(target: Page, label: str, kind: str | None = None) -> Any:
    """The graph node whose name is exactly ``label`` (and of ``kind``, if given)."""
    inner = f'.lnode[data-label="{label}"]' + (f'[data-kind="{kind}"]' if kind else "")
    return target.locator(".react-flow__node", has=target.locator(inner))


OL = "/api/v1/lineage/openlineage"


def api(server: ServerProcess, path: str, **params: Any) -> Any:
    """The JSON answer of ``GET`` the OpenLineage API's ``path`` (raising on an error status)."""
    answer = httpx.get(f"{server.url}{OL}/{path}", params=params, timeout=30)
    answer.raise_for_status()
    return answer.json()


def url_param(page: Page, key: str) -> str | None:
    """The page URL's ``key`` (its first value), or None."""
    return parse_qs(urlparse(page.url).query).get(key, [None])[0]
