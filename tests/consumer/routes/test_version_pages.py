"""The versions endpoints' shared edge: the path, the id's form, the window and the page."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.consumer.lineage import API, ingest
from tests.consumer.test_errors import assert_error_shape
from tests.factories import at, dataset, facet, run_event

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/read/test_dataset_version_page.py and store/write/test_job_versions.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

DATASET = f"{API}/datasets/{quote('s3://lake', safe='')}/{quote('a/t', safe='')}/versions"
JOB = f"{API}/jobs/{quote('spark', safe='')}/{quote('load/t', safe='')}/versions"


def _seed(client: TestClient) -> None:
    for i in range(3):
        out = dataset("s3://lake", "a/t", schema=facet(fields=[{"name": f"c{i}", "type": "INT"}]))
        event = run_event("COMPLETE", job=("spark", "load/t"), time=at(i), outputs=[out])
        event["job"]["facets"] = {"sql": facet(query=f"select {i}")}
        ingest(client, event)


@pytest.mark.parametrize(
    ("path", "kind", "digits"),
    [(DATASET, "dataset", 16), (JOB, "job", 32)],
)
@pytest.mark.parametrize("bad", ["nothex", "0" * 15, "g" * 16, "0" * 33, "0" * 16 + "x"])
def test_a_malformed_version_id_is_a_400_naming_the_parameter_and_the_form(
    client: TestClient, path: str, kind: str, digits: int, bad: str
) -> None:
    if len(bad) == digits and bad != "g" * 16:  # well formed for this kind
        pytest.skip("a well-formed id")
    error = assert_error_shape(client.get(f"{path}/{bad}"), 400)
    message = error["message"]
    assert "'version_id'" in message
    assert f"not a {kind} version id" in message
    assert f"{digits} hex digits" in message
    assert "String should match pattern" not in message


def test_well_formed_ids_of_either_case_are_looked_up(client: TestClient) -> None:
    _seed(client)
    newest = client.get(DATASET).json()["versions"][0]["id"]
    assert client.get(f"{DATASET}/{newest.upper()}").json()["id"] == newest
    job_newest = client.get(JOB).json()["versions"][0]["id"]
    assert client.get(f"{JOB}/{job_newest.upper()}").json()["id"] == job_newest
    missing = assert_error_shape(client.get(f"{DATASET}/{'0' * 16}"), 404)
    assert "no version" in missing["message"]


@pytest.mark.parametrize("path", [DATASET, JOB])
def test_both_lists_take_the_same_window_and_page(client: TestClient, path: str) -> None:
    _seed(client)
    everything = client.get(path).json()
    assert everything["total"] == 3
    window = client.get(path, params={"since": at(1), "until": at(2)}).json()
    assert window["total"] == 1
    assert window["versions"] == everything["versions"][1:2]
    page = client.get(path, params={"limit": 1, "offset": 2}).json()
    assert page["versions"] == everything["versions"][2:]
    swapped = assert_error_shape(client.get(path, params={"since": at(2), "until": at(1)}), 400)
    assert "'since'" in swapped["message"]
    bad_time = assert_error_shape(client.get(path, params={"until": "yesterday"}), 400)
    assert "'until'" in bad_time["message"]
    too_many = assert_error_shape(client.get(path, params={"limit": 1001}), 400)
    assert "limit" in too_many["message"]
