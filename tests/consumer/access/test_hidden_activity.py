"""No read endpoint tells a scoped caller who acted on a dataset it may see from a hidden
namespace: the hidden job's producer, nor the time of its latest event (docs/api.md, Access
filtering, says what of the dataset's own history shows, and the gap left).

The reproduction: with an ``api_keys`` authorizer whose key ``teamkey`` sees only
``driver_ranking``, the admin sends a START and a FAIL of ``SECRET_loader_job`` in
``secret://hidden-team`` (producer ``.../secretproducer``), whose output is the visible
``driver_ranking`` dataset ``data_source/driver_hourly_stats_source``. ``teamkey`` was
answered the secret producer and the hidden FAIL's time as the dataset's ``producer``
and ``updated_at`` on ``/graph/node``, ``/graph``, a subgraph and ``/datasets``, and
the hidden event's facet stamps (``_producer``, ``_schemaURL``) in the dataset's facets.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, run_event

TEAM, HIDDEN = "driver_ranking", "secret://hidden-team"
SOURCE = "data_source/driver_hourly_stats_source"
TEAM_PRODUCER = "https://example.com/teamproducer"
SECRET = "secretproducer"  # in no answer to teamkey
SECRET_PRODUCER = f"https://example.com/{SECRET}"
AUTHORIZER = {
    "type": "api_keys",
    "keys": [
        {"key": "teamkey", "projects": [TEAM]},
        {"key": "bothkey", "projects": [TEAM, HIDDEN]},
    ],
}
KEYS = ("adminkey123", "bothkey")  # unscoped; scoped to both namespaces
RUN = "0190aaaa-0000-7000-8000-000000000001"


def _schema(producer: str, *names: str) -> dict[str, Any]:
    return {
        "_producer": producer,
        "_schemaURL": f"{producer}/facets/SchemaDatasetFacet.json",
        "fields": [{"name": n, "type": "BIGINT"} for n in names],
    }


def _hidden(kind: str, time: str) -> dict[str, Any]:
    output = dataset(TEAM, SOURCE, schema=_schema(SECRET_PRODUCER, "driver_id", "conv_rate"))
    event = run_event(kind, run_id=RUN, job=(HIDDEN, "SECRET_loader_job"), time=time)
    return {**event, "producer": SECRET_PRODUCER, "outputs": [output]}


@pytest.fixture
def client(make_client: AppFactory) -> TestClient:
    client = make_client(authorizer=AUTHORIZER, api_key="adminkey123")
    team = run_event(
        "COMPLETE",
        job=(TEAM, "team_job"),
        time=at(10),
        outputs=[
            dataset(TEAM, SOURCE, schema=_schema(TEAM_PRODUCER, "driver_id")),
            dataset(TEAM, "stats"),
        ],
    )
    ingest(
        client,
        {**team, "producer": TEAM_PRODUCER},
        _hidden("START", at(100)),
        _hidden("FAIL", at(200)),
        headers={"X-API-Key": "adminkey123"},
    )
    return client


def _get(client: TestClient, path: str, key: str, **params: Any) -> Any:
    response = client.get(f"{API}{path}", params=params, headers={"X-API-Key": key})
    assert response.status_code == 200, response.text
    return response.json()


def _node_path() -> str:
    return f"/graph/dataset/{quote(TEAM, safe='')}/{quote(SOURCE, safe='')}"


def _answers(client: TestClient, key: str) -> dict[str, Any]:
    """Every answer naming the dataset, by what was asked."""
    node = {"type": "dataset", "namespace": TEAM, "name": SOURCE}
    return {
        "node": _get(client, "/graph/node", key, depth=0, **node),
        "node depth 1": _get(client, "/graph/node", key, depth=1, **node),
        "graph": _get(client, "/graph", key),
        # a window's page, whole and narrowed to the namespace (a filter, not the scope)
        "graph seen since": _get(client, "/graph", key, since=at(0)),
        "graph of the namespace seen since": _get(
            client, "/graph", key, namespace=TEAM, since=at(0)
        ),
        "subgraph": _get(client, _node_path(), key),
        "datasets": _get(client, "/datasets", key),
        "datasets of the namespace": _get(client, "/datasets", key, namespace=TEAM),
        "datasets searched": _get(client, "/datasets", key, search="hourly"),
        "versions": _get(
            client, f"/datasets/{quote(TEAM, safe='')}/{quote(SOURCE, safe='')}/versions", key
        ),
    }


def _source(answer: Any) -> dict[str, Any]:
    """The dataset's item (a graph node, or a Datasets row) in an answer."""
    if "datasets" in answer:
        (item,) = (d for d in answer["datasets"] if d["dataset_name"] == SOURCE)
    else:
        (item,) = (n for n in answer["nodes"] if n["type"] == "dataset" and n["name"] == SOURCE)
    return dict(item)


def test_a_scoped_caller_sees_no_producer_nor_time_of_a_hidden_job(client: TestClient) -> None:
    hidden_ms = _get(
        client, "/graph/node", "adminkey123", type="dataset", namespace=TEAM, name=SOURCE, depth=0
    )["nodes"][0]["updated_at"]
    for asked, answer in _answers(client, "teamkey").items():
        assert SECRET not in str(answer), asked  # nor in a facet's stamps
        if asked != "versions":
            item = _source(answer)
            assert item["producer"] is None, asked
            assert item["updated_at"] is None, asked
            assert item["updated_at_iso"] is None, asked
            assert hidden_ms not in item.values(), asked
    # The visible facet content stays; only the stamps of whoever stated it go.
    node = _source(_answers(client, "teamkey")["node"])
    assert node["facets"]["schema"] == {"fields": _schema("", "driver_id", "conv_rate")["fields"]}


def test_whoever_may_see_the_hidden_namespace_sees_them(client: TestClient) -> None:
    for key in KEYS:
        for asked, answer in _answers(client, key).items():
            if asked != "versions":
                item = _source(answer)
                assert item["producer"] == SECRET_PRODUCER, (key, asked)
                assert item["updated_at_iso"] == "2026-01-01T12:03:20Z", (key, asked)
    # Which event stated a dataset's facet is not stored: only an unscoped caller gets
    # their stamps.
    stamps = [_source(_answers(client, key)["node"])["facets"]["schema"] for key in KEYS]
    assert [schema.get("_producer") for schema in stamps] == [SECRET_PRODUCER, None]


def test_sorting_datasets_by_producer_or_time_orders_by_what_the_caller_sees(
    client: TestClient,
) -> None:
    """The hidden job's values are null to teamkey: its row sorts last, either way."""
    for sort in ("producer", "-producer", "updated", "-updated"):
        answer = _get(client, "/datasets", "teamkey", sort=sort)
        assert [d["dataset_name"] for d in answer["datasets"]] == ["stats", SOURCE], sort
    # The admin's order is the values': the hidden FAIL is the latest update.
    latest = _get(client, "/datasets", "adminkey123", sort="-updated")["datasets"][0]
    assert latest["dataset_name"] == SOURCE


def test_a_version_the_hidden_job_wrote_keeps_its_facets_without_their_stamps(
    client: TestClient,
) -> None:
    versions = _get(
        client, f"/datasets/{quote(TEAM, safe='')}/{quote(SOURCE, safe='')}/versions", "teamkey"
    )["versions"]
    hidden = [v for v in versions if v["job"] is None]
    assert hidden, versions
    for version in hidden:
        assert "_producer" not in version["facets"]["schema"]
        assert version["created_by_run_id"] is None  # a hidden run has no id here (run trees)
        one = _get(
            client,
            f"/datasets/{quote(TEAM, safe='')}/{quote(SOURCE, safe='')}/versions/{version['id']}",
            "teamkey",
        )
        assert one["created_by_run_id"] is None
    (team,) = (v for v in versions if v["job"] is not None)
    assert team["facets"]["schema"]["_producer"] == TEAM_PRODUCER  # its own job's: visible
    assert team["created_by_run_id"] is not None
    everything = _get(
        client, f"/datasets/{quote(TEAM, safe='')}/{quote(SOURCE, safe='')}/versions", "adminkey123"
    )["versions"]
    assert all(v["created_by_run_id"] is not None for v in everything if v["job"] is not None)


def test_the_oldest_dataset_update_counts_only_what_the_caller_may_see(
    client: TestClient,
) -> None:
    """The hidden job also read ``old``, before anything the team did: teamkey's oldest
    dataset update is the team's event, not the hidden read."""
    read = run_event("COMPLETE", job=(HIDDEN, "SECRET_reader"), time=at(1))
    hidden_read = {**read, "producer": SECRET_PRODUCER, "inputs": [dataset(TEAM, "old")]}
    ingest(client, hidden_read, headers={"X-API-Key": "adminkey123"})

    def oldest(key: str) -> int:
        return int(_get(client, "/retention", key)["storage"]["datasets"]["oldest_ms"])

    assert oldest("adminkey123") == 1_767_268_801_000
    assert oldest("teamkey") == 1_767_268_810_000
