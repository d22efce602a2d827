"""Readable graphs (issue 27): names that tell nodes apart, a readable first
view, the selection kept in view, edges around nodes. Chromium, quickstart data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, Route, expect

from tests.server_process import ServerProcess
from tests.ui.conftest import node, steady, wait_graph

Shoot = Callable[[Page, str], Path]

# Every text line of every node: is any clipped (cut by its box rather than
# shortened to fit), and what does it show?
NODE_TEXT = """(selector) => [...document.querySelectorAll('.react-flow__node .lnode')]
.flatMap(n => {
  const outer = n.getBoundingClientRect();
  return [...n.querySelectorAll(selector)].filter(e => e.offsetParent !== null).map(e => {
    const box = e.getBoundingClientRect();
    return {
      name: n.dataset.label,
      title: n.getAttribute('title'),
      shown: e.innerText,
      clippedX: e.scrollWidth > e.clientWidth + 1,
      clippedY: e.scrollHeight > e.clientHeight + 1 || box.bottom > outer.bottom - 1
        || box.top < outer.top + 1,
    };
  });
})"""

ZOOM = (
    "() => Number(document.querySelector('.react-flow__viewport').style.transform"
    ".match(/scale\\(([\\d.]+)\\)/)[1])"
)


def zoom(page: Page) -> float:
    value: float = page.evaluate(ZOOM)
    return value


def zoom_in_to_near(page: Page) -> None:
    for _ in range(10):
        if page.locator(".canvas[data-zoom=near]").count():
            return
        page.locator(".react-flow__controls-zoomin").click()
        page.wait_for_timeout(150)
    expect(page.locator(".canvas[data-zoom=near]")).to_have_count(1)


def shortened_from(shown: str, name: str) -> bool:
    """``shown`` is ``name``, or its start and end around an ellipsis."""
    if shown == name:
        return True
    if "…" not in shown:
        return False
    head, tail = shown.split("…", 1)
    return name.startswith(head) and name.endswith(tail) and len(tail) >= 4


def test_names_keep_the_part_that_tells_them_apart_and_nothing_is_clipped(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    # Zoomed out: the name alone, its end on a line of its own.
    expect(page.locator(".canvas[data-zoom=mid]")).to_have_count(1)
    lines: list[dict[str, Any]] = page.evaluate(NODE_TEXT, ".lnode-name > span")
    assert lines
    assert not [line for line in lines if line["clippedX"] or line["clippedY"]]
    shown = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('.react-flow__node .lnode')]"
        ".map(n => [n.dataset.label + '|' + n.dataset.kind,"
        " [...n.querySelectorAll('.lnode-name > .lnode-line')].map(s => s.innerText).join('')]))"
    )
    materialize = {k: v for k, v in shown.items() if k.startswith("feast_materialize_")}
    # the two views' materializations and the incremental one after the type change
    assert len(materialize) == 3
    assert len(set(materialize.values())) == 3, materialize  # told apart
    for key, text in shown.items():
        assert shortened_from(text, key.split("|")[0]), (key, text)
    shoot(page, "readable-names-zoomed-out")

    # Zoomed in: kind, name and namespace, each on one line, none clipped.
    zoom_in_to_near(page)
    for selector in (".lnode-label", ".lnode-sub", ".lnode-top"):
        texts: list[dict[str, Any]] = page.evaluate(NODE_TEXT, selector)
        assert texts, selector
        clipped = [t for t in texts if t["clippedX"] or t["clippedY"]]
        assert not clipped, (selector, clipped[:3])
    labels: list[dict[str, Any]] = page.evaluate(NODE_TEXT, ".lnode-label")
    for label in labels:
        assert shortened_from(label["shown"], label["name"]), label
        assert label["name"] in label["title"]  # the full name on hover
    ellipsized = [label for label in labels if "…" in label["shown"]]
    assert ellipsized, "no name long enough to shorten in the quickstart"
    shoot(page, "readable-names-zoomed-in")

    # The details show the full name.
    long_one = ellipsized[0]["name"]
    # (a click event: zoomed in, the node may sit under the toolbar)
    page.locator(f'.lnode[data-label="{long_one}"]').first.dispatch_event("click")
    expect(page.get_by_test_id("details-panel").locator(".panel-sub")).to_contain_text(long_one)


def test_the_quickstart_opens_at_a_readable_size(page: Page, server: ServerProcess) -> None:
    page.goto(server.url)
    wait_graph(page)
    names = page.evaluate(
        "() => [...document.querySelectorAll('.react-flow__node')].map(n => {"
        " const e = [...n.querySelectorAll('.lnode-label, .lnode-name')]"
        "   .find(e => e.offsetParent !== null);"
        " return parseFloat(getComputedStyle(e).fontSize); })"
    )
    on_screen = min(names) * zoom(page)
    assert on_screen >= 10.9, f"names are {on_screen:.1f} px on screen"
    # Most of the graph is on screen.
    canvas = page.locator(".canvas").bounding_box()
    assert canvas is not None
    inside = page.evaluate(
        "(c) => [...document.querySelectorAll('.react-flow__node')].filter(n => {"
        " const b = n.getBoundingClientRect();"
        " return b.left >= c.x && b.right <= c.x + c.width && b.top >= c.y"
        " && b.bottom <= c.y + c.height; }).length",
        canvas,
    )
    assert inside >= 0.75 * page.locator(".react-flow__node").count()


def visible_in_canvas(page: Page, label: str) -> bool:
    canvas = page.locator(".canvas").bounding_box()
    box = page.locator(f'.lnode[data-label="{label}"]').first.bounding_box()
    assert canvas is not None
    assert box is not None
    return (
        box["x"] >= canvas["x"]
        and box["x"] + box["width"] <= canvas["x"] + canvas["width"]
        and box["y"] >= canvas["y"]
        and box["y"] + box["height"] <= canvas["y"] + canvas["height"]
    )


def drag_view(page: Page, dx: float) -> None:
    """Pan the view by ``dx`` pixels, dragging the empty top of the canvas."""
    canvas = page.locator(".canvas").bounding_box()
    assert canvas is not None
    x, y = canvas["x"] + canvas["width"] / 2, canvas["y"] + 20
    page.mouse.move(x, y)
    page.mouse.down()
    for step in range(1, 11):
        page.mouse.move(x + dx * step / 10, y)
    page.mouse.up()
    page.wait_for_timeout(200)


def test_the_details_panel_never_hides_the_selected_node(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    page.goto(server.url)
    wait_graph(page)
    # The node furthest right that is on screen: where the panel opens.
    rightmost = page.evaluate(
        "() => { const c = document.querySelector('.canvas').getBoundingClientRect();"
        " return [...document.querySelectorAll('.lnode')]"
        "  .filter(n => { const b = n.getBoundingClientRect();"
        "    return b.right <= c.right && b.left >= c.left; })"
        "  .sort((a, b) => b.getBoundingClientRect().right - a.getBoundingClientRect().right)[0]"
        "  .dataset.label; }"
    )
    target = page.locator(f'.lnode[data-label="{rightmost}"]').first
    target.click()
    expect(page.get_by_test_id("details-panel")).to_be_visible()
    page.wait_for_timeout(600)  # the view pans (300 ms)
    assert visible_in_canvas(page, rightmost), f"{rightmost} is under the details panel"

    # Closed, the node moved back to the right edge, and opened again.
    page.get_by_role("button", name="Close details").click()
    canvas = page.locator(".canvas").bounding_box()
    box = target.bounding_box()
    assert canvas is not None
    assert box is not None
    drag_view(page, canvas["x"] + canvas["width"] - 60 - (box["x"] + box["width"]))
    target.click()
    expect(page.get_by_test_id("details-panel")).to_be_visible()
    page.wait_for_timeout(600)
    assert visible_in_canvas(page, rightmost), f"{rightmost} is under the details panel"

    # Opening a run's output off screen brings it into view, without zooming in.
    page.get_by_role("button", name="Close details").click()
    node(page, "train_driver_ranking").click()
    page.wait_for_timeout(600)
    drag_view(page, 900)  # the model, right of the job, is now far off screen
    assert not visible_in_canvas(page, "models/driver_ranking")
    before = zoom(page)
    runs = page.get_by_test_id("runs-table")
    runs.locator("tr.run-row").first.get_by_role("button", name="inputs & outputs").click()
    page.get_by_test_id("run-io").get_by_role("button", name="models/driver_ranking").click()
    expect(page.get_by_test_id("details-panel").locator(".panel-title")).to_have_text(
        "models/driver_ranking"
    )
    page.wait_for_timeout(600)
    assert visible_in_canvas(page, "models/driver_ranking")
    assert zoom(page) <= before + 1e-6
    shoot(page, "details-keeps-selection-in-view")


EDGES_THROUGH_NODES = """() => {
  const nodes = [...document.querySelectorAll('.react-flow__node')].map(n => {
    const m = n.style.transform.match(/translate\\(([-\\d.]+)px, ([-\\d.]+)px\\)/);
    return { id: n.dataset.id, x: +m[1], y: +m[2], w: n.offsetWidth, h: n.offsetHeight };
  });
  const crossings = [];
  for (const edge of document.querySelectorAll('.react-flow__edge')) {
    const id = edge.dataset.testid.replace('rf__edge-', '');
    const [source, target] = id.slice(id.indexOf(':') + 1).split('\\u0000');
    const path = edge.querySelector('path.react-flow__edge-path');
    const length = path.getTotalLength();
    for (let at = 0; at <= length; at += 3) {
      const p = path.getPointAtLength(at);
      const hit = nodes.find(n => n.id !== source && n.id !== target
        && p.x > n.x + 2 && p.x < n.x + n.w - 2 && p.y > n.y + 2 && p.y < n.y + n.h - 2);
      if (hit) { crossings.push([id, hit.id]); break; }
    }
  }
  return { edges: document.querySelectorAll('.react-flow__edge').length, crossings };
}"""


def test_edges_go_around_nodes(page: Page, server: ServerProcess) -> None:
    for jobs in ("", "?jobs=all", "?jobs=none"):
        page.goto(server.url + "/" + jobs)
        wait_graph(page)
        found = page.evaluate(EDGES_THROUGH_NODES)
        assert found["edges"] > 10
        assert not found["crossings"], (jobs, found["crossings"])


# Nodes whose box meets the minimap's, the legend's or the zoom buttons'.
UNDER_OVERLAYS = """() => {
  const overlays = [...document.querySelectorAll(
    '.react-flow__minimap, .legend, .react-flow__controls')].map((o) => o.getBoundingClientRect());
  const meets = (r, o) =>
    r.left < o.right && r.right > o.left && r.top < o.bottom && r.bottom > o.top;
  return [...document.querySelectorAll('.react-flow__node')]
    .filter((n) => overlays.some((o) => meets(n.getBoundingClientRect(), o)))
    .map((n) => n.querySelector('.lnode').dataset.label);
}"""


def one_more_job(route: Route) -> None:
    """The graph answer with one more job: an ad hoc reader of the training set (the
    quickstart's graph grown by a node, as a new user's first own event does)."""
    answer = route.fetch()
    body = answer.json()
    training = next(n for n in body["nodes"] if n["name"].endswith("driver_training_set.parquet"))
    train = next(n for n in body["nodes"] if n["name"] == "train_driver_ranking")
    reader = {**train, "id": "job:spark://ml-team:adhoc_reader", "name": "adhoc_reader"}
    read = next(e for e in body["edges"] if e["target"] == train["id"] and e["type"] == "input")
    # In the order the server answers: nodes by namespace and name, edges by their ends.
    body["nodes"].insert(body["nodes"].index(train), reader)
    body["edges"].append({**read, "source": training["id"], "target": reader["id"]})
    body["edges"].sort(key=lambda e: (e["source"], e["target"], e["type"], e["origin"] or ""))
    body["total_nodes"] += 1
    route.fulfill(response=answer, json=body)


def test_the_fit_keeps_every_node_clear_of_the_minimap_and_the_legend(
    page: Page, server: ServerProcess, shoot: Shoot
) -> None:
    for grown in (False, True):
        if grown:
            page.route("**/api/v1/lineage/openlineage/graph?*", one_more_job)
        page.goto(server.url)
        wait_graph(page, nodes=30 if grown else 29)
        steady(page.locator(".react-flow__node").last)
        assert page.evaluate(UNDER_OVERLAYS) == [], f"grown: {grown}"
        assert zoom(page) >= 0.55  # still readable (viewport.ts, READABLE_ZOOM)
        # The Fit button too.
        page.locator(".react-flow__controls-fitview").click()
        page.wait_for_timeout(400)
        steady(page.locator(".react-flow__node").last)
        assert page.evaluate(UNDER_OVERLAYS) == [], f"fit button, grown: {grown}"
    shoot(page, "readable-fit-clear-of-the-minimap")
