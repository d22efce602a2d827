"""A name holding any character reaches every endpoint that takes it in its path.

OpenLineage names may hold a newline, a tab, a CR or another control
character, and ingest stores them. Starlette's ``path`` convertor matched
``.*``, whose ``.`` takes no newline: ``/graph/job/ns/job%0Awith%20newline``
and every other ``{name:path}`` route answered 404 "no such endpoint".
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from feast_lineage.consumer.routes.name_path import name_path
from tests.consumer.lineage import API, ingest
from tests.factories import dataset, run_event

# Routing does not depend on the database.
SQLITE = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)

NS = "trial_odd"
# Each character in a job's name, an input's and an output's (with a "/", and at the end).
CHARACTERS = {
    "newline": "\n",
    "carriage-return": "\r",
    "tab": "\t",
    "unit-separator": "\x1f",
    "delete": "\x7f",
    "next-line": "\x85",
    "line-separator": "\u2028",
}


def _segment(text: str) -> str:
    return quote(text, safe="")


def _names(character: str) -> tuple[str, str, str]:
    c = character
    return f"job{c}with odd", f"in{c}put", f"out/put{c}"


def _seed(client: TestClient, character: str) -> None:
    job, source, target = _names(character)
    event = run_event(
        "COMPLETE",
        job=(NS, job),
        inputs=[dataset(NS, source)],
        outputs=[dataset(NS, target)],
    )
    ingest(client, event)


def _ok(client: TestClient, path: str) -> Any:
    response = client.get(path)
    assert response.status_code == 200, (path, response.text)
    return response.json()


@SQLITE
@pytest.mark.parametrize("character", CHARACTERS.values(), ids=CHARACTERS.keys())
def test_every_path_form_reaches_a_name_with_the_character(
    client: TestClient, character: str
) -> None:
    _seed(client, character)
    job, source, target = (_segment(name) for name in _names(character))
    job_name, source_name, target_name = _names(character)

    # The subgraph around the job and around each dataset.
    for kind, name, text in (("job", job, job_name), ("dataset", source, source_name)):
        subgraph = _ok(client, f"{API}/graph/{kind}/{NS}/{name}")
        assert subgraph["center"] == f"{kind}:{NS}:{text}"
    subgraph = _ok(client, f"{API}/graph/dataset/{NS}/{target}?depth=2")
    assert {node["name"] for node in subgraph["nodes"]} == {job_name, source_name, target_name}

    # The job's versions, and one of them.
    versions = _ok(client, f"{API}/jobs/{NS}/{job}/versions")
    assert versions["total"] == 1
    assert versions["versions"][0]["job_name"] == job_name
    one = _ok(client, f"{API}/jobs/{NS}/{job}/versions/{versions['versions'][0]['id']}")
    assert one["job_name"] == job_name

    # The output's versions, and one of them.
    versions = _ok(client, f"{API}/datasets/{NS}/{target}/versions")
    assert versions["total"] == 1
    assert versions["versions"][0]["dataset_name"] == target_name
    one = _ok(client, f"{API}/datasets/{NS}/{target}/versions/{versions['versions'][0]['id']}")
    assert one["dataset_name"] == target_name

    # Column lineage of the input.
    columns = _ok(client, f"{API}/datasets/{NS}/{source}/columns")
    assert columns["dataset"] == {"namespace": NS, "name": source_name}


def _fill(template: str, name: str) -> str:
    """An OpenAPI path template with a name (and anything else it takes) filled in."""
    version_id = "0" * (32 if "/jobs/" in template else 16)
    fill = {"node_type": "job", "namespace": NS, "name": name, "version_id": version_id}
    return re.sub(r"\{(\w+)\}", lambda m: fill[m.group(1)], template)


@SQLITE
def test_no_endpoint_with_a_name_in_its_path_misses_a_newline(client: TestClient) -> None:
    """Every path of the API reference with a ``{name}`` segment, this one's and any added later."""
    document = client.app.openapi()  # type: ignore[attr-defined]
    templates = [
        path for path, ops in document["paths"].items() if "{name}" in path and "get" in ops
    ]
    assert len(templates) >= 6, templates
    for template in templates:
        response = client.get(_fill(template, _segment("no\nsuch\nname")))
        # Routed: the handler answers that nothing has that name, not that no endpoint exists.
        assert response.status_code == 404, (template, response.text)
        message = response.json()["error"]["message"]
        assert "no such endpoint" not in message, (template, message)


def test_a_template_without_a_name_is_refused_when_the_route_is_declared() -> None:
    assert name_path("/jobs/{namespace}/{name}/versions") == (
        "/jobs/{namespace}/{name:anything}/versions"
    )
    with pytest.raises(ValueError, match=re.escape("no {name} segment")):
        name_path("/jobs/{namespace}/versions")
