"""The quickstart's first view (issue 36, points 1, 2 and 4), in Chromium at
device scale 1 and 2: every node on screen with names of at least 12 px,
names whole or cut between words, same-named nodes saying their kind,
underscores drawn whole, and red for failure only (the DOM graph and the
painted one)."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from tests.server_process import ServerProcess, write_repo
from tests.ui.conftest import ROOT, VIEWPORT, PageErrors, node, ui_server, wait_graph
from tests.ui.test_painted_graph import CANVAS, NODES, fan_out, hover_until_lit
from tests.ui.test_readable_graph import zoom_in_to_near

IMAGES = ROOT / "docs" / "images"
SEPARATORS = "_./:- "

ZOOM = (
    "() => Number(document.querySelector('.react-flow__viewport').style.transform"
    ".match(/scale\\(([\\d.]+)\\)/)[1])"
)

# Each node: its name, kind, title, the text lines it shows (as drawn now),
# their font size, and its box on screen.
NODES_SHOWN = """() => [...document.querySelectorAll('.react-flow__node .lnode')].map(n => {
  const lines = [...n.querySelectorAll('.lnode-label, .lnode-name > span:not(.lnode-tag)')]
    .filter(e => e.offsetParent !== null);
  const tag = n.querySelector('.lnode-name .lnode-tag');
  const b = n.getBoundingClientRect();
  return {
    name: n.dataset.label, kind: n.dataset.kind, title: n.getAttribute('title'),
    lines: lines.map(e => e.innerText),
    px: Math.min(...lines.map(e => parseFloat(getComputedStyle(e).fontSize))),
    tag: tag && tag.offsetParent !== null ? tag.innerText : null,
    box: {left: b.left, top: b.top, right: b.right, bottom: b.bottom},
  };
})"""


@pytest.fixture(params=[1, 2], ids=["1x", "2x"])
def scaled(request: pytest.FixtureRequest, browser: Browser) -> Iterator[tuple[Page, int]]:
    """A fresh page at device scale 1 or 2 that fails the test on a JavaScript error."""
    scale: int = request.param
    context = browser.new_context(viewport=VIEWPORT, device_scale_factor=scale)  # type: ignore[arg-type]
    opened = context.new_page()
    errors = PageErrors()
    opened.on("console", errors.on_console)
    opened.on("pageerror", errors.on_page_error)
    opened.set_default_timeout(20_000)
    yield opened, scale
    context.close()
    assert not errors.errors, f"the page logged errors: {errors.errors}"


def open_graph(page: Page) -> list[dict[str, Any]]:
    wait_graph(page)
    page.wait_for_timeout(300)  # the first fit is immediate; let a frame pass
    shown: list[dict[str, Any]] = page.evaluate(NODES_SHOWN)
    return shown


def cut_between_words(shown: str, name: str) -> bool:
    """``shown`` is ``name`` whole, or its first and last words around one ellipsis."""
    if shown == name:
        return True
    if shown.count("…") != 1:
        return False
    head, tail = shown.split("…")
    if not (name.startswith(head) and name.endswith(tail) and len(head) + len(tail) < len(name)):
        return False
    head_ok = head == "" or head[-1] in SEPARATORS
    tail_ok = tail == "" or name[len(name) - len(tail) - 1] in SEPARATORS
    return head_ok and tail_ok


def test_the_first_view_shows_every_node_with_readable_names(
    scaled: tuple[Page, int], server: ServerProcess
) -> None:
    page, scale = scaled
    page.goto(server.url)
    shown = open_graph(page)
    assert len(shown) == int(page.get_attribute(".canvas", "data-nodes") or 0)
    zoom: float = page.evaluate(ZOOM)
    smallest = min(s["px"] for s in shown) * zoom
    assert smallest >= 12, f"names are {smallest:.1f} px on screen"
    # Every node on the canvas, none under the legend.
    canvas = page.locator(".canvas").bounding_box()
    legend = page.locator(".legend").bounding_box()
    assert canvas is not None
    assert legend is not None
    outside = [
        s["name"]
        for s in shown
        if s["box"]["left"] < canvas["x"]
        or s["box"]["right"] > canvas["x"] + canvas["width"]
        or s["box"]["top"] < canvas["y"]
        or s["box"]["bottom"] > canvas["y"] + canvas["height"]
        or (s["box"]["bottom"] > legend["y"] and s["box"]["left"] < legend["x"] + legend["width"])
    ]
    assert not outside, f"off screen or under the legend: {outside}"
    for end in ("train_driver_ranking", "models/driver_ranking", "driver_training_set"):
        expect(node(page, end)).to_be_in_viewport()
    page.screenshot(path=str(IMAGES / f"ui-first-view-{scale}x.png"))


def test_names_are_whole_or_cut_between_words_and_same_names_say_their_kind(
    page: Page, server: ServerProcess
) -> None:
    page.goto(server.url)
    shown = open_graph(page)
    for s in shown:
        text = "".join(s["lines"])
        assert cut_between_words(text, s["name"]), (s["name"], s["lines"])
        assert s["name"] in s["title"]  # the full name on hover
    # Nodes of the same name say their kind in words; others do not need to.
    names = [s["name"] for s in shown]
    shared = {n for n in names if names.count(n) > 1}
    assert "driver_hourly_stats" in shared
    for s in shown:
        if s["name"] in shared:
            assert s["tag"], s
            assert s["tag"] in s["kind"].replace("_", " ") or s["kind"] == "dataset", s
        else:
            assert s["tag"] is None, s
    tags = {s["tag"] for s in shown if s["name"] == "driver_hourly_stats"}
    assert {"feature view", "online store"} <= tags
    # Zoomed in: one line per name, cut between words too.
    for _ in range(10):
        if page.locator(".canvas[data-zoom=near]").count():
            break
        page.locator(".react-flow__controls-zoomin").click()
        page.wait_for_timeout(150)
    near: list[dict[str, Any]] = page.evaluate(NODES_SHOWN)
    for s in near:
        assert len(s["lines"]) == 1
        assert cut_between_words(s["lines"][0], s["name"]), (s["name"], s["lines"])


TASK = "driver_features_daily.export_daily_trips"  # Airflow's "<dag>.<task>"


def read_without_ellipsis(shown: list[dict[str, Any]]) -> dict[str, str]:
    """Each shortened name as it reads with its ellipsis skipped, by full name."""
    texts = {s["name"]: "".join(s["lines"]) for s in shown}
    return {name: text.replace("…", "") for name, text in texts.items() if "…" in text}


def test_a_task_too_long_to_show_whole_keeps_its_own_name(
    page: Page, server: ServerProcess
) -> None:
    """The failed task export_daily_trips was drawn "driver_… daily_trips": its
    DAG's first word and its own last two, which read as the feature view
    driver_daily_trips. Cut, a task's name loses its DAG's part first."""
    page.goto(server.url)
    shown = open_graph(page)
    expect(page.locator(".canvas[data-zoom=mid]")).to_have_count(1)
    names = {s["name"] for s in shown}
    task = next(s for s in shown if s["name"] == TASK)
    drawn = "".join(task["lines"])
    assert drawn.endswith("…export_daily_trips"), task["lines"]
    assert cut_between_words(drawn, TASK), task["lines"]
    assert task["title"].startswith(TASK + "\n")  # the full name on hover
    expect(node(page, TASK)).to_have_attribute("aria-label", re.compile(re.escape(TASK)))
    # No shortened name reads as another node's.
    misread = {n: r for n, r in read_without_ellipsis(shown).items() if r in names - {n}}
    assert not misread, misread
    # Zoomed in, on one line, the same.
    zoom_in_to_near(page)
    near: list[dict[str, Any]] = page.evaluate(NODES_SHOWN)
    task = next(s for s in near if s["name"] == TASK)
    assert len(task["lines"]) == 1
    assert task["lines"][0].endswith("…export_daily_trips"), task["lines"]
    assert cut_between_words(task["lines"][0], TASK), task["lines"]
    misread = {n: r for n, r in read_without_ellipsis(near).items() if r in names - {n}}
    assert not misread, misread


# The dark pixels of a PNG (data URL) decoded in the page: the ink of a glyph.
DARK_PIXELS = """async (png) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + png;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let count = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] < 360) count++;
  return count;
}"""

# Where each underscore of the names' visible lines is drawn (its glyph's box).
UNDERSCORES = """() => {
  const out = [];
  const lines = '.react-flow__node .lnode-name > span:not(.lnode-tag)';
  for (const line of document.querySelectorAll(lines)) {
    if (line.offsetParent === null) continue;
    const text = line.firstChild;
    if (!text) continue;
    for (let i = 0; i < text.length; i++) {
      if (text.data[i] !== '_') continue;
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      const r = range.getBoundingClientRect();
      if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom + 2 > innerHeight) continue;
      out.push({text: text.data, x: r.left, y: r.top, width: r.width, height: r.height});
    }
  }
  return out;
}"""


def test_underscores_are_never_clipped(scaled: tuple[Page, int], server: ServerProcess) -> None:
    page, scale = scaled
    page.goto(server.url)
    open_graph(page)
    expect(page.locator(".canvas[data-zoom=mid]")).to_have_count(1)
    underscores: list[dict[str, Any]] = page.evaluate(UNDERSCORES)
    assert len(underscores) > 10
    # A clipped underscore leaves its glyph's box blank: look for its ink there.
    blank = []
    for u in underscores:
        clip = {"x": u["x"], "y": u["y"], "width": max(1, u["width"]), "height": u["height"] + 2}
        png = base64.b64encode(page.screenshot(clip=clip)).decode()
        if page.evaluate(DARK_PIXELS, png) < scale:
            blank.append(u["text"])
    assert not blank, f"underscores not drawn at {scale}x in {blank}"


def rgb(value: str) -> tuple[int, int, int]:
    found = re.search(r"rgba?\((\d+), (\d+), (\d+)", value)
    assert found, value
    r, g, b = (int(x) for x in found.groups())
    return r, g, b


def is_red(color: tuple[int, int, int]) -> bool:
    r, g, b = color
    return r > 150 and g < 100 and b < 100


def test_red_means_failure_only(page: Page, server: ServerProcess) -> None:
    page.goto(server.url)
    open_graph(page)
    # Focus a node (the dashed centre), select it (the ring), light its path.
    job = node(page, "feast_materialize").first
    job.click()
    page.get_by_role("button", name="Show lineage").click()
    page.wait_for_selector(".lnode.is-center")
    center = page.locator(".lnode.is-center").first
    expect(center).to_have_class(re.compile("is-selected"))
    styles = center.evaluate(
        "e => { const s = getComputedStyle(e); return [s.outlineColor, s.boxShadow]; }"
    )
    assert not is_red(rgb(styles[0])), f"the focus ring is red: {styles[0]}"
    assert not is_red(rgb(styles[1])), f"the selection is red: {styles[1]}"
    center.hover()
    lit = page.locator(".react-flow__edge-path.lit-on").first
    expect(lit).to_be_attached()
    stroke = lit.evaluate("e => getComputedStyle(e).stroke")
    assert not is_red(rgb(stroke)), f"the lit path is red: {stroke}"
    # The dashed parent -> child edges are in the legend, and say what they are on hover.
    parent = page.locator(".legend [data-edge=parent]")
    expect(parent).to_contain_text("parent → child job")
    expect(parent).to_have_attribute("title", re.compile("parent job"))
    page.goto(server.url)
    open_graph(page)
    edge = page.locator(".ledge-explained[data-kind=parent] title").first
    expect(edge).to_contain_text("parent → child job")


# Every word the page shows or tells on hover: its text, its title attributes, SVG titles.
WORDS = """() => [document.body.innerText,
  ...[...document.querySelectorAll('[title]')].map(e => e.getAttribute('title')),
  ...[...document.querySelectorAll('title')].map(e => e.textContent)].join('\\n')"""


def test_what_the_jobs_filter_leaves_out_is_never_called_hidden(
    page: Page, server: ServerProcess
) -> None:
    """On an open server "hidden" read as access filtering (under a key, what it may not
    see: "a hidden upstream"): the Jobs filter's edges and field say "filtered out" and
    "not shown" instead."""
    page.goto(server.url)
    open_graph(page)
    derived = page.locator(".legend [data-edge=derived]")
    expect(derived).to_have_text("through a job filtered out")
    expect(derived).to_have_attribute("title", re.compile("not shown by the Jobs filter"))
    edge = page.locator(".ledge-explained[data-kind=derived] title").first
    expect(edge).to_contain_text("through a job filtered out: ")
    jobs = page.locator("label.field", has=page.get_by_label("Jobs shown"))
    expect(jobs).to_have_attribute("title", re.compile("jobs not shown are drawn as direct edges"))
    words = page.evaluate(WORDS)
    assert "hidden" not in words.lower(), [w for w in words.splitlines() if "hidden" in w.lower()]


# Red pixels of the painted canvas (a selection ring was red before issue 36).
RED_PIXELS = """(selector) => {
  const canvas = document.querySelector(selector);
  const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  let red = 0, indigo = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
    if (a < 100) continue;
    if (r > 150 && g < 100 && b < 100) red++;
    if (b > 180 && r < 140 && g < 120) indigo++;
  }
  return {red, indigo};
}"""


def test_the_painted_graph_selects_in_indigo_not_red(page: Page, tmp_path: Any) -> None:
    with ui_server(write_repo(tmp_path / "hub", project="hub")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=fan_out(), timeout=60)
        assert answer.status_code in (200, 204), answer.text
        page.goto(server.url)
        page.wait_for_selector(f".canvas[data-state=ready][data-nodes='{NODES}']", timeout=60_000)
        expect(page.locator(f"{CANVAS}:not([data-drawn='0'])")).to_have_count(1)
        spot = hover_until_lit(page)
        page.mouse.click(spot["x"], spot["y"])
        expect(page.locator(CANVAS)).to_have_attribute("data-selected-drawn", re.compile("."))
        page.wait_for_timeout(300)
        pixels = page.evaluate(RED_PIXELS, CANVAS)
        # No run failed here: nothing is red; the selection and its path are indigo.
        assert pixels["red"] == 0, pixels
        assert pixels["indigo"] > 50, pixels
