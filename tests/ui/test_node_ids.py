"""Node ids in the UI (ui/src/nodeId.ts): names whose ":" would make two datasets read alike
are two nodes, each selected and refocused by its own id, in Chromium against a real server;
jobs whose names would join alike are a column edge and a list row each, and such datasets a
row each in a run's inputs and a result each in the search box."""

from __future__ import annotations

import re
import uuid
from pathlib import Path
from urllib.parse import urlencode

import httpx
from playwright.sync_api import Page, Route, expect

from tests.server_process import write_repo
from tests.ui.conftest import ui_server, wait_graph

PRODUCER = "https://scheduler.example.com/openlineage-plugin/2.1"
SPEC = "https://openlineage.io/spec/2-0-2/OpenLineage.json"


def _run(job: str, **io: list[dict[str, str]]) -> dict:
    return {
        "eventType": "COMPLETE",
        "eventTime": "2026-11-01T00:01:00Z",
        "producer": PRODUCER,
        "schemaURL": SPEC,
        "job": {"namespace": "coll", "name": job},
        "run": {"runId": str(uuid.uuid4())},
        "inputs": io.get("inputs", []),
        "outputs": io.get("outputs", []),
    }


def test_a_name_with_a_colon_is_selected_and_refocused_by_its_own_node(
    page: Page, tmp_path: Path
) -> None:
    # Joined with ":" unescaped, (x:y, z) and (x, y:z) were one id.
    first = {"namespace": "x:y", "name": "z"}
    second = {"namespace": "x", "name": "y:z"}
    events = [
        _run("writer1", outputs=[first]),
        _run("writer2", outputs=[second]),
        _run("reader", inputs=[first]),
    ]
    with ui_server(write_repo(tmp_path / "ids", project="ids")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        page.goto(
            f"{server.url}/?{urlencode({'node_type': 'dataset', 'node_ns': 'x', 'node': 'y:z'})}"
        )
        wait_graph(page, nodes=5)
        selected = page.locator(".lnode.is-selected")
        expect(selected).to_have_count(1)
        expect(selected).to_have_attribute("data-node-id", "dataset:x:y%3Az")
        expect(page.get_by_test_id("details-panel")).to_contain_text("y:z")
        # Escape closes the panel, the focus back on that node (not the other, not <body>).
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("details-panel")).to_have_count(0)
        page.wait_for_function(
            "want => document.activeElement?.closest('.react-flow__node')?.dataset.id === want",
            arg="dataset:x:y%3Az",
        )
        expect(page.locator(".lnode.is-selected")).to_have_count(0)
        expect(page.locator(".lnode[data-node-id='dataset:x:y:z']")).not_to_have_class(
            re.compile(r"(^|\s)is-selected(\s|$)")
        )


def test_two_jobs_whose_names_join_alike_draw_a_column_edge_each(
    page: Page, tmp_path: Path
) -> None:
    # Joined with ":" unescaped, the jobs (a:b, c) and (a, b:c) gave their edges one id.
    lineage = {"a": {"inputFields": [{"namespace": "coll", "name": "src", "field": "y"}]}}
    src = {"namespace": "coll", "name": "src"}
    out = {
        "namespace": "coll",
        "name": "out",
        "facets": {"columnLineage": {"_producer": PRODUCER, "_schemaURL": SPEC, "fields": lineage}},
    }
    events = []
    for namespace, name in (("a:b", "c"), ("a", "b:c")):
        event = _run(name, inputs=[src], outputs=[out])
        event["job"]["namespace"] = namespace
        events.append(event)
    with ui_server(write_repo(tmp_path / "edges", project="edges")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        page.goto(f"{server.url}/?{urlencode({'col_ns': 'coll', 'col_ds': 'out', 'col': 'a'})}")
        page.wait_for_selector("[data-testid=column-ready]", state="attached", timeout=30_000)
        edges = page.locator(".column-edge")
        expect(edges).to_have_count(2)
        ids = edges.evaluate_all("els => els.map(e => e.dataset.id)")
        assert len(set(ids)) == 2, ids
        assert "field:coll:src:y>field:coll:out:a>job:a:b%3Ac" in ids, ids


def test_two_jobs_whose_names_join_alike_are_a_row_each_in_a_datasets_panel(
    page: Page, tmp_path: Path
) -> None:
    # Keyed by namespace and name joined with a space, the jobs (x y, z) and (x, y z) were one
    # React key: once a third writer came first, the panel, opened again, kept a stale row.
    out = {"namespace": "coll", "name": "out"}
    events = []
    for namespace, name in (("x y", "z"), ("x", "y z")):
        event = _run(name, outputs=[out])
        event["job"]["namespace"] = namespace
        events.append(event)
    with ui_server(write_repo(tmp_path / "writers", project="writers")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage/batch", json=events, timeout=60)
        assert answer.status_code == 204, answer.text
        page.goto(
            f"{server.url}/?{urlencode({'node_type': 'dataset', 'node_ns': 'coll', 'node': 'out'})}"
        )
        wait_graph(page, nodes=3)
        writers = page.get_by_test_id("dataset-writers").locator("li")
        expect(writers).to_have_count(2)

        first = _run("first", outputs=[out])
        first["job"]["namespace"] = "a"
        answer = httpx.post(f"{server.url}/api/v1/lineage", json=first, timeout=60)
        assert answer.status_code in (200, 201, 204), answer.text
        # Opened again: the two rows the panel kept, then the three the server answers now.
        page.keyboard.press("Escape")
        expect(page.get_by_test_id("details-panel")).to_have_count(0)
        page.locator(".lnode[data-node-id='dataset:coll:out']").click()
        expect(page.get_by_test_id("dataset-writers")).to_contain_text("first")
        expect(writers).to_have_count(3)
        texts = writers.evaluate_all("els => els.map(e => e.textContent)")
        assert sorted(texts) == ["first a", "y z x", "z x y"], texts


def test_two_datasets_whose_names_join_alike_are_a_row_each_in_a_run_s_inputs(
    page: Page, tmp_path: Path
) -> None:
    # Keyed by namespace and name joined with a space, the datasets (x y, z) and (x, y z) were
    # one React key: once a third input came first, the run's inputs, shown again, kept a
    # stale row.
    run = _run("job", inputs=[{"namespace": "x y", "name": "z"}, {"namespace": "x", "name": "y z"}])
    with ui_server(write_repo(tmp_path / "inputs", project="inputs")) as server:
        answer = httpx.post(f"{server.url}/api/v1/lineage", json=run, timeout=60)
        assert answer.status_code in (200, 201, 204), answer.text
        link = {"node_type": "job", "node_ns": "coll", "node": "job", "run": run["run"]["runId"]}
        page.goto(f"{server.url}/?{urlencode(link)}")
        inputs = page.get_by_test_id("run-io").locator(".run-io-cols > div").first.locator("li")
        expect(inputs).to_have_count(2)

        # The same run reads a third dataset, which sorts first.
        run["inputs"] = [{"namespace": "a", "name": "first"}]
        answer = httpx.post(f"{server.url}/api/v1/lineage", json=run, timeout=60)
        assert answer.status_code in (200, 201, 204), answer.text
        # To that dataset and back: the two rows kept, then the three the server answers now.
        inputs.first.get_by_role("button").click()
        expect(page.get_by_test_id("run-io")).to_have_count(0)
        page.go_back()
        expect(page.get_by_test_id("run-io")).to_contain_text("first")
        expect(inputs).to_have_count(3)
        texts = inputs.evaluate_all("els => els.map(e => e.textContent)")
        assert sorted(texts) == ["firsta", "y zx", "zx y"], texts


def test_two_datasets_whose_names_join_alike_are_a_search_result_each(
    page: Page, tmp_path: Path
) -> None:
    # Joined with ":" unescaped, the server's results (a:b, cqz) and (a, b:cqz) had one React
    # key: once a result before them went (the text grew), the list kept a stale row.
    outputs = [
        {"namespace": "a", "name": "acq"},
        {"namespace": "a", "name": "b:cqz"},
        {"namespace": "a:b", "name": "cqz"},
        {"namespace": "coll", "name": "loaded"},
    ]

    def part_loaded(route: Route) -> None:
        # The graph shown is part of the store (the writer and one output): the search asks
        # the server for the rest.
        answer = route.fetch()
        body = answer.json()
        body["nodes"] = [n for n in body["nodes"] if n["namespace"] == "coll"]
        kept = {n["id"] for n in body["nodes"]}
        body["edges"] = [e for e in body["edges"] if {e["source"], e["target"]} <= kept]
        route.fulfill(response=answer, json=body)

    with ui_server(write_repo(tmp_path / "search", project="search")) as server:
        answer = httpx.post(
            f"{server.url}/api/v1/lineage", json=_run("writer", outputs=outputs), timeout=60
        )
        assert answer.status_code in (200, 201, 204), answer.text
        page.route("**/api/v1/lineage/openlineage/graph?*", part_loaded)
        page.goto(server.url)
        wait_graph(page, nodes=2)
        search = page.get_by_label("Search nodes")
        results = page.get_by_role("listbox", name="Search results").get_by_role("option")
        search.fill("cq")
        expect(results).to_have_count(3)
        search.press("z")
        expect(results.first).not_to_contain_text("acq")
        expect(results).to_have_count(2)
        shown = results.evaluate_all(
            "els => els.map(e => [e.querySelector('.search-ns').textContent,"
            " e.querySelector('.search-name').textContent])"
        )
        assert shown == [["a (not loaded)", "b:cqz"], ["a:b (not loaded)", "cqz"]], shown
