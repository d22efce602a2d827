"""Imported history joins new lineage: one node per Feast object, runs of both eras on it.

A Feast 0.67 user's repository first runs Feast's own lineage: plain
``feast apply`` and ``feast materialize`` (Feast's CLI, subprocesses) with
Feast's emitter sending to Feast's own ``feast serve_lineage``, which stores
the events in the registry's database. Then the user switches:
``feast-lineage import-feast-lineage``, ``feast-lineage apply`` (nothing
changed, nothing emitted), ``lineage-sync`` (the whole registry, as
docs/producer.md says to run once) and ``materialize``. The lineage store
then holds one connected graph: Feast's names (``driver_hourly_stats``) were
mapped onto ours (``feature_view/driver_hourly_stats``) at import, each
keeping Feast's name as an alias, so every object is one node whose history
has runs from both eras.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from feast_lineage.config import load_config
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.settings import AppSettings
from tests.feast_api.feast_server import (
    FEAST,
    READS,
    SKIP_REASON,
    feast_lineage_server,
    feast_serves_lineage,
)
from tests.postgres import free_port
from tests.producer.conftest import invoke
from tests.producer.feast_repo import file_transport, write_config, write_repo

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not feast_serves_lineage(), reason=SKIP_REASON),
]

VIEWS = ["driver_hourly_stats", "driver_fresh_stats", "customer_profile"]
MATERIALIZED = ["driver_hourly_stats", "customer_profile"]  # batch sources Feast materializes
WINDOW = ("2026-01-08T00:00:00", "2026-01-11T00:00:00")
ALIAS = "FEAST_BUILTIN_LINEAGE"


def feast(root: Path, *args: str) -> None:
    done = subprocess.run(
        [str(FEAST), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def components(graph: dict[str, Any]) -> list[set[str]]:
    """The graph's connected parts, edges taken either way."""
    keys = {f"{n['type']}:{n['namespace']}:{n['name']}" for n in graph["nodes"]}
    links: dict[str, set[str]] = {k: set() for k in keys}
    for edge in graph["edges"]:
        links.setdefault(edge["source"], set()).add(edge["target"])
        links.setdefault(edge["target"], set()).add(edge["source"])
    parts: list[set[str]] = []
    left = set(links)
    while left:
        todo, part = [left.pop()], set()
        while todo:
            key = todo.pop()
            part.add(key)
            todo.extend(links[key] - part)
        left -= part
        parts.append(part)
    return parts


def neighbours(graph: dict[str, Any], key: str) -> set[str]:
    found = {e["target"] for e in graph["edges"] if e["source"] == key}
    return found | {e["source"] for e in graph["edges"] if e["target"] == key}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("feast-era")
    port = free_port()
    feast_section = {
        "enabled": True,
        "transport_type": "http",
        "transport_url": f"http://127.0.0.1:{port}",
        "consumer": {"enabled": True},  # Feast's server stores in the registry's database
    }
    write_repo(root, openlineage=feast_section)
    with feast_lineage_server(root, port=port):
        feast(root, "apply")
        feast(root, "materialize", *WINDOW)

    # The switch: the same repository, our producer (self-reporting into the same database).
    write_config(
        root,
        openlineage={**file_transport(root / "events.jsonl"), "consumer": {"enabled": True}},
    )
    imported = invoke("-c", str(root), "import-feast-lineage")
    assert "0 refused" in imported.output, imported.output
    invoke("-c", str(root), "apply")
    invoke("-c", str(root), "lineage-sync")
    invoke("-c", str(root), "materialize", *WINDOW)

    settings = AppSettings.from_config(load_config(root), standalone=True)
    with TestClient(create_app(settings)) as api:
        graph = api.get(READS + "/graph", params={"namespace": "demo", "limit": 5000}).json()
        runs = {
            job: api.get(READS + "/runs", params={"job_namespace": "demo", "job_name": job}).json()
            for job in ("feast_materialize", "feast_feature_views_demo")
        }
    return {"graph": graph, "runs": runs, "imported": imported.output}


def test_one_connected_graph_one_node_per_object(store: dict[str, Any]) -> None:
    graph = store["graph"]
    assert len(components(graph)) == 1, components(graph)
    datasets = {n["name"] for n in graph["nodes"] if n["type"] == "dataset"}
    bare = {name for name in datasets if "/" not in name}
    assert bare == set(), "Feast's names were not mapped onto ours"
    assert {f"feature_view/{v}" for v in VIEWS} <= datasets
    assert "feature_view/expected_trips" in datasets  # the on demand view
    assert {"feature_service/driver_activity", "entity/driver"} <= datasets
    assert {f"online_store/{v}" for v in MATERIALIZED} <= datasets
    jobs = {n["name"] for n in graph["nodes"] if n["type"] == "job"}
    # Feast's jobs that have a counterpart here are it.
    assert not {j for j in jobs if j.startswith(("feature_service_", "materialize_"))}


def test_each_views_history_has_runs_of_both_eras(store: dict[str, Any]) -> None:
    graph = store["graph"]
    for view in VIEWS:
        around = neighbours(graph, f"dataset:demo:feature_view/{view}")
        assert "job:demo:feast_feature_views_demo" in around, view  # Feast's apply
        assert f"job:demo:feast_apply_feature_view_{view}" in around, view  # ours
    for view in MATERIALIZED:
        around = neighbours(graph, f"dataset:demo:feature_view/{view}")
        assert "job:demo:feast_materialize" in around, view  # Feast's materialization
        assert f"job:demo:feast_materialize_feature_view_{view}" in around, view  # ours
        online = neighbours(graph, f"dataset:demo:online_store/{view}")
        assert {
            "job:demo:feast_materialize",
            f"job:demo:feast_materialize_feature_view_{view}",
        } <= online
    # Feast's materialization and ours are runs of one job.
    assert store["runs"]["feast_materialize"]["total"] == 2
    assert store["runs"]["feast_feature_views_demo"]["total"] == 1


def test_feasts_names_stay_as_aliases(store: dict[str, Any]) -> None:
    aliases = {
        (s["dataset_name"], s["alias_name"])
        for s in store["graph"]["symlinks"]
        if s["alias_type"] == ALIAS
    }
    assert ("feature_view/driver_hourly_stats", "driver_hourly_stats") in aliases
    assert ("feature_service/driver_activity", "driver_activity") in aliases
    assert ("online_store/driver_hourly_stats", "online_store_driver_hourly_stats") in aliases
    assert ("entity/driver", "driver") in aliases
