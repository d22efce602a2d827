"""Parameters every route shares: bounds, repeats and NUL characters (query and path).

Each answers a 400 ``invalid_parameter`` naming the parameter, before the
handler runs: nothing is read, echoed or deleted with a value the server
cannot use.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import create_engine

from feast_lineage.config import ConsumerSettings
from feast_lineage.config.consumer import MAX_RETENTION_DAYS
from feast_lineage.consumer.app import create_app
from feast_lineage.consumer.deps import MAX_OFFSET
from feast_lineage.consumer.routes import include_routes
from feast_lineage.consumer.services.retention import Retention
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.consumer.store.engine.database import upgrade_schema
from feast_lineage.event_time import MIN_US, to_iso
from tests.conftest import AppFactory
from tests.consumer.lineage import API, chain, cross_producer, ingest
from tests.factories import at, dataset, run_event

PAGED = ("events", "runs", "jobs", "datasets", "graph")


@pytest.fixture
def api(tmp_path: Path) -> Iterator[TestClient]:
    """A SQLite consumer with a little lineage: the checks here do not depend on the store."""
    settings = AppSettings(
        consumer=ConsumerSettings(enabled=True),
        database_url=f"sqlite:///{tmp_path / 'lineage.db'}",
    )
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        ingest(client, *cross_producer())
        yield client


def invalid(response: Any) -> str:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "invalid_parameter"
    return str(error["message"])


# Integer bounds


@pytest.mark.parametrize("endpoint", PAGED)
def test_an_offset_past_the_maximum_is_a_400_naming_it(client: TestClient, endpoint: str) -> None:
    ingest(client, *chain())
    for offset in (MAX_OFFSET + 1, 2**63, 2**64, 10**30):
        message = invalid(client.get(f"{API}/{endpoint}", params={"offset": offset}))
        assert "'offset'" in message
        assert str(MAX_OFFSET) in message
    # The largest is a valid query on every database: a page past the last item.
    response = client.get(f"{API}/{endpoint}", params={"offset": MAX_OFFSET})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["offset"] == MAX_OFFSET
    assert next(body[k] for k in ("jobs", "datasets", "events", "runs", "nodes") if k in body) == []


def _integer_schemas(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The integer schemas of a parameter (one, or one of an ``anyOf`` with null)."""
    options = schema.get("anyOf", [schema])
    return [option for option in options if option.get("type") == "integer"]


def test_every_integer_query_parameter_has_an_upper_bound() -> None:
    app = FastAPI()
    include_routes(app, consumer=True, web_ui=True)
    checked = set()
    for path, operations in app.openapi()["paths"].items():
        for operation in operations.values():
            for param in operation.get("parameters", []):
                if param["in"] != "query":
                    continue
                for schema in _integer_schemas(param["schema"]):
                    where = f"{path}: query parameter {param['name']!r}"
                    assert "maximum" in schema, f"{where} has no upper bound"
                    checked.add(param["name"])
    assert checked == {"limit", "offset", "depth", "days"}


# Whole numbers with spaces around them (``?depth=+1``: an unencoded '+' is a
# space) are refused, as an instant with spaces around it is, on every endpoint.


@pytest.mark.parametrize(
    ("sent", "value", "fix"),
    [
        ("+1", "' 1'", "1; a '+' left unencoded in a URL is a space: leave it out or write it %2B"),
        ("1%20", "'1 '", "1"),
        ("%091", "'\\t1'", "1"),
        ("%20-1%20", "' -1 '", "-1"),
    ],
)
def test_every_integer_query_parameter_refuses_spaces_around_it(
    api: TestClient, sent: str, value: str, fix: str
) -> None:
    checked = set()
    for template, operations in api.get("/openapi.json").json()["paths"].items():
        path = re.sub(r"\{(\w+)\}", lambda m: _PATH_VALUES[m.group(1)], template)
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                if param["in"] != "query" or not _integer_schemas(param["schema"]):
                    continue
                name = param["name"]
                response = api.request(method.upper(), f"{path}?{name}={sent}")
                assert invalid(response) == (
                    f"query parameter {name!r}: {value} has spaces around it; "
                    f"pass a whole number such as {fix}"
                ), f"{method} {template}"
                checked.add(name)
    assert checked == {"limit", "offset", "depth", "days"}


@pytest.mark.parametrize("sent", ["1", "%2B1", "01"])
def test_a_whole_number_without_spaces_is_still_taken(api: TestClient, sent: str) -> None:
    for path in ("/jobs?limit=", "/runs?offset=", "/graph/job/a/b?depth="):
        response = api.get(f"{API}{path}{sent}")
        assert response.status_code in (200, 404), response.text
    body = api.get(f"{API}/jobs?limit={sent}&offset={sent}").json()
    assert (body["limit"], body["offset"]) == (1, 1)


def test_spaces_around_several_integers_name_each(api: TestClient) -> None:
    response = api.get(f"{API}/jobs?limit=%205&offset=2%20")
    assert invalid(response).startswith("query parameter 'limit': ' 5' has spaces around it")
    assert [d["path"] for d in response.json()["error"]["details"]] == [
        "query parameter 'limit'",
        "query parameter 'offset'",
    ]


# Retention days


def _seed_old(client: TestClient) -> int:
    ingest(client, *chain())  # 2026-01-01: older than a day, newer than a century
    total = client.get(f"{API}/events").json()["total"]
    assert total == 3
    return int(total)


@pytest.mark.parametrize("days", [MAX_RETENTION_DAYS + 1, 700_000, 740_000, 10**20])
def test_prune_days_past_a_century_are_refused_before_anything_is_deleted(
    make_client: AppFactory, days: int
) -> None:
    client = make_client()
    total = _seed_old(client)
    message = invalid(client.post(f"{API}/retention/prune", params={"days": days}))
    assert "'days'" in message
    assert str(MAX_RETENTION_DAYS) in message
    assert client.get(f"{API}/events").json()["total"] == total
    assert client.get(f"{API}/retention").json()["last_prune"] is None
    # A century is the most: a cutoff in the 1900s, and nothing of 2026 removed.
    response = client.post(f"{API}/retention/prune", params={"days": MAX_RETENTION_DAYS})
    assert response.status_code == 200, response.text
    assert response.json()["cutoff"][:2] == "19"
    assert client.get(f"{API}/events").json()["total"] == total


def test_a_configured_retention_beyond_1900_prunes_nothing_and_does_not_fail(
    tmp_path: Path,
) -> None:
    """retention_days in the config is not bounded by the route: the prune copes."""
    engine = create_engine(f"sqlite:///{tmp_path / 'lineage.db'}")
    upgrade_schema(engine)
    try:
        for days in (740_000, 10**20):
            result = Retention().prune(engine, days)
            assert result.cutoff == "1900-01-01T00:00:00Z"
            assert not any(result.removed.values())
    finally:
        engine.dispose()


def test_times_before_the_year_1000_keep_four_digit_years() -> None:
    delta = datetime(110, 5, 19, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    assert to_iso(delta.days * 86_400 * 1_000_000) == "0110-05-19T00:00:00Z"
    assert to_iso(MIN_US) == "1900-01-01T00:00:00Z"


# Repeated parameters


@pytest.mark.parametrize(
    ("method", "path", "query", "name"),
    [
        ("DELETE", "/reset", "namespace=a&namespace=b", "namespace"),
        ("POST", "/retention/prune", "days=1&days=2", "days"),
        ("GET", "/events", "event_type=START&event_type=FAIL", "event_type"),
        ("GET", "/events", "limit=5&limit=5", "limit"),
        ("GET", "/runs", "state=FAIL&state=COMPLETE", "state"),
        ("GET", "/jobs", "search=a&search=b", "search"),
        ("GET", "/datasets", "namespace=a&namespace=b", "namespace"),
        ("GET", "/graph", "offset=0&offset=1", "offset"),
        ("GET", "/graph/node", "type=job&namespace=a&name=b&name=c", "name"),
    ],
)
def test_a_repeated_parameter_is_a_400_naming_it(
    api: TestClient, method: str, path: str, query: str, name: str
) -> None:
    message = invalid(api.request(method, f"{API}{path}?{query}"))
    assert message == f"query parameter {name!r} is given twice; pass it once"


def test_a_repeated_namespace_resets_nothing(api: TestClient) -> None:
    before = api.get(f"{API}/namespaces").json()
    query = "namespace=spark%3A%2F%2Fml-team&namespace=s3%3A%2F%2Fbucket"
    invalid(api.delete(f"{API}/reset?{query}"))
    assert api.get(f"{API}/namespaces").json() == before


def test_every_repeated_parameter_is_named(api: TestClient) -> None:
    response = api.get(f"{API}/events?limit=1&limit=2&limit=3&offset=0&offset=0&job_name=x")
    message = invalid(response)
    assert message == "query parameter 'limit' is given 3 times; pass it once"
    details = response.json()["error"]["details"]
    assert [d["path"] for d in details] == ["query parameter 'limit'", "query parameter 'offset'"]
    # An unknown parameter is named first, repeated or not.
    unknown = api.get(f"{API}/retention?x=1&x=2")
    assert unknown.status_code == 400
    assert unknown.json()["error"]["code"] == "unknown_parameter"
    # /healthz and /readyz take any parameters (a probe may add its own).
    assert api.get("/healthz?probe=1&probe=2").status_code == 200
    assert api.get("/readyz?probe=1&probe=2").status_code == 200


def test_registry_routes_refuse_repeats_too(api: TestClient) -> None:
    message = invalid(api.get("/api/v1/lineage/registry?project=a&project=b"))
    assert message == "query parameter 'project' is given twice; pass it once"


# NUL characters


@pytest.mark.parametrize("endpoint", ["jobs", "datasets"])
def test_a_nul_in_search_is_refused_not_a_match_for_everything(
    api: TestClient, endpoint: str
) -> None:
    assert api.get(f"{API}/{endpoint}").json()["total"] > 0
    message = invalid(api.get(f"{API}/{endpoint}?search=%00"))
    assert message.startswith("query parameter 'search' contains a NUL character")
    invalid(api.get(f"{API}/{endpoint}?search=dri%00ver"))


@pytest.mark.parametrize(
    ("method", "path", "name"),
    [
        ("GET", "/events?namespace=%00", "namespace"),
        ("GET", "/events?job_name=x%00", "job_name"),
        ("GET", "/runs?job_namespace=%00", "job_namespace"),
        ("GET", "/graph?namespace=%00", "namespace"),
        ("GET", "/graph/node?type=job&namespace=a%00&name=b", "namespace"),
        ("DELETE", "/reset?namespace=%00", "namespace"),
    ],
)
def test_a_nul_in_any_query_parameter_is_refused(
    api: TestClient, method: str, path: str, name: str
) -> None:
    message = invalid(api.request(method, API + path))
    assert message.startswith(f"query parameter {name!r} contains a NUL character")


_PATH_VALUES = {
    "namespace": "s3%3A%2F%2Fbucket",
    "name": "driver",
    "node_type": "dataset",
    "run_id": "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f",
    "version_id": "3f2a9c0b1d4e5f60",
    "object_type": "feature_view",
    "object_name": "driver_hourly_stats",
}


def test_a_nul_in_any_path_parameter_is_refused_naming_it(api: TestClient) -> None:
    """Each path parameter of each operation in turn holds a NUL: a 400 naming it, no echo."""
    paths = api.get("/openapi.json").json()["paths"]
    checked = set()
    for template, operations in paths.items():
        params = re.findall(r"\{(\w+)\}", template)
        for method, nul in ((m.upper(), p) for m in operations for p in params):
            path = template
            for param in params:
                value = _PATH_VALUES[param]
                if param == nul:  # a node's namespace or name keeps its %2F in its segment
                    node = template.startswith(API) and param in ("namespace", "name")
                    value = f"{'a%2F' if node else ''}%00{value}"
                path = path.replace(f"{{{param}}}", value)
            response = api.request(method, path)
            message = invalid(response)
            assert message.startswith(f"path parameter {nul!r} contains a NUL character (%00)")
            for echo in ("\x00", "\\x00", "\\u0000"):
                assert echo not in response.text
            checked.add(nul)
    assert checked == set(_PATH_VALUES)


@pytest.mark.parametrize(
    "path", ["/graph/job/%00/x", "/datasets/%00/x/versions", "/jobs/%00/x/versions/" + "9b2f" * 8]
)
def test_a_nul_namespace_in_a_path_is_a_400_not_a_404_echoing_it(
    api: TestClient, path: str
) -> None:
    response = api.get(API + path)
    assert invalid(response).startswith("path parameter 'namespace' contains a NUL character")


def test_the_nul_check_runs_on_every_database(client: TestClient) -> None:
    ingest(client, run_event("COMPLETE", job=("ns", "j"), outputs=[dataset("ns", "d")]))
    for query in ("search=%00", "namespace=%00"):
        invalid(client.get(f"{API}/jobs?{query}"))


# Parameters with a fixed set of values, and run ids: exactly what the OpenAPI
# document declares is taken, everything else is a 400.


@pytest.mark.parametrize(
    ("query", "accepted"),
    [
        ("runs?state=COMPLETE", True),
        ("runs?state=complete", True),
        ("runs?state=Complete", False),
        ("runs?state=DONE", False),
        ("events?event_type=START", True),
        ("events?event_type=start", True),
        ("events?event_type=Start", False),
        ("health?kind=failed", True),
        ("health?kind=FAILED", True),
        ("health?kind=Failed", False),
        ("health?kind=broken", False),
        ("graph/node?type=job&namespace=a&name=b", None),  # 404: a valid, unknown node
        ("graph/node?type=Job&namespace=a&name=b", False),
        ("events?run_id=0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f", True),
        ("events?run_id=0190E6A1-7C3F-7B6E-9A1D-3F2B8C4D5E6F", True),
        ("events?run_id=0190e6a17c3f7b6e9a1d3f2b8c4d5e6f", False),
        ("events?run_id={0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f}", False),
        ("runs/urn:uuid:0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f", False),
        ("runs/0190e6a17c3f7b6e9a1d3f2b8c4d5e6f", False),
    ],
)
def test_enumerated_and_uuid_parameters_take_exactly_what_openapi_declares(
    api: TestClient, query: str, accepted: bool | None
) -> None:
    response = api.get(f"{API}/{query}")
    if accepted is None:
        assert response.status_code == 404, response.text
    elif accepted:
        assert response.status_code == 200, response.text
    else:
        message = invalid(response)
        assert any(words in message for words in ("is not one of", "is not a UUID", "is not job"))


@pytest.mark.parametrize(
    ("query", "start"),
    [
        ("events?event_type=begin", "query parameter 'event_type': 'begin' is not one of"),
        ("runs?state=done", "query parameter 'state': 'done' is not one of"),
        ("health?kind=broken", "query parameter 'kind': 'broken' is not one of failed, stale"),
        (
            "impact?node_type=table&namespace=a&name=b",
            "query parameter 'node_type': 'table' is not job or dataset",
        ),
        (
            f"lineage/diff?from={at(1)}&to={at(2)}&node_type=table&namespace=a&name=b",
            "query parameter 'node_type': 'table' is not job or dataset",
        ),
        (
            "graph/node?type=table&namespace=a&name=b",
            "query parameter 'type': 'table' is not job or dataset",
        ),
        ("graph/table/a/b", "path parameter 'node_type': 'table' is not job or dataset"),
    ],
)
def test_a_value_outside_a_fixed_set_is_refused_naming_the_parameter_first(
    api: TestClient, query: str, start: str
) -> None:
    message = invalid(api.get(f"{API}/{query}"))
    assert message.startswith(start), message
    # The query form names its own parameter; only the path form points at the path.
    assert ("/graph/job/..." in message) == query.startswith("graph/table/")


@pytest.mark.parametrize(
    ("path", "name", "items"),
    [
        ("graph", "namespace", "nodes"),
        ("jobs", "namespace", "jobs"),
        ("datasets", "namespace", "datasets"),
        ("events", "namespace", "events"),
        ("runs", "job_namespace", "runs"),
        ("lineage/diff", "within", "nodes_added"),
    ],
)
def test_an_empty_namespace_filter_is_a_namespace_no_node_has(
    api: TestClient, path: str, name: str, items: str
) -> None:
    """Every filter by namespace takes an empty value and answers empty, as for an unknown one."""
    window = {"from": at(-1), "to": at(1)} if path == "lineage/diff" else {}
    assert api.get(f"{API}/{path}", params=window).json()[items] != []
    for value in ("", "no-such-namespace"):
        response = api.get(f"{API}/{path}", params={**window, name: value})
        assert response.status_code == 200, response.text
        assert response.json()[items] == []
    # /health's filter as well (the lineage here has no problem to list either way).
    response = api.get(f"{API}/health", params={"namespace": ""})
    assert response.status_code == 200, response.text


def test_the_openapi_document_declares_the_enums_and_run_id_format(api: TestClient) -> None:
    paths = api.get("/openapi.json").json()["paths"]

    def param(path: str, name: str) -> dict[str, Any]:
        found = [p for p in paths[path]["get"]["parameters"] if p["name"] == name]
        return dict(found[0]["schema"])

    assert "Complete" not in param(f"{API}/runs", "state")["enum"]
    assert set(param(f"{API}/runs", "state")["enum"]) >= {"COMPLETE", "complete"}
    assert "start" in param(f"{API}/events", "event_type")["enum"]
    assert param(f"{API}/events", "run_id")["format"] == "uuid"
    assert param(f"{API}/runs/{{run_id}}", "run_id")["format"] == "uuid"
    assert param(f"{API}/graph/node", "type")["enum"] == ["job", "dataset"]
    assert param(f"{API}/health", "kind")["enum"] == ["failed", "stale", "FAILED", "STALE"]
    assert "415" in paths["/api/v1/lineage"]["post"]["responses"]


def test_an_events_filter_may_reach_beyond_the_years_events_can_have(api: TestClient) -> None:
    everything = api.get(f"{API}/events").json()["total"]
    assert everything > 0
    wide = api.get(f"{API}/events", params={"since": "1754-12-06T14:39:37Z"})
    assert wide.status_code == 200, wide.text
    assert wide.json()["total"] == everything
    before = api.get(f"{API}/events", params={"until": "1800-01-01T00:00:00Z"})
    assert before.status_code == 200, before.text
    assert before.json()["total"] == 0


@pytest.mark.parametrize(
    ("path", "query", "echoed"),
    [
        (
            "/graph",
            {"since": "9999-12-31T23:59:59-23:59"},
            ("since", "9999-12-31T23:59:59.999999Z"),
        ),
        ("/graph", {"until": "0001-01-01T00:00:00+23:59"}, ("until", "0001-01-01T00:00:00Z")),
        ("/graph", {"as_of": "0001-01-01T00:00:00+23:59"}, ("as_of", "0001-01-01T00:00:00Z")),
        (
            "/columns",
            {"namespace": "x", "name": "y", "until": "9999-12-31T23:59:59-23:59"},
            None,
        ),
        (
            "/lineage/diff",
            {"from": "0001-01-01T00:00:00+23:59", "to": "2026-12-03T18:00:00Z"},
            None,
        ),
    ],
)
def test_a_bound_an_offset_carries_past_year_1_or_9999_is_the_first_or_last_instant(
    api: TestClient, path: str, query: dict[str, str], echoed: tuple[str, str] | None
) -> None:
    """A valid RFC 3339 time whose offset carries it outside what an ISO date can show
    answered a 500 (OverflowError) when echoed: it is taken as the first or last instant."""
    response = api.get(f"{API}{path}", params=query)
    assert response.status_code in (200, 404), response.text
    assert "internal" not in response.text
    if echoed is not None:
        key, value = echoed
        assert response.json()[key] == value


def test_an_offset_whose_plus_became_a_space_is_told_to_write_it_encoded(api: TestClient) -> None:
    message = invalid(api.get(f"{API}/graph?as_of=2026-12-03T17:54:42+02:00"))
    assert "'as_of'" in message
    assert "%2B" in message
    assert "%2B" not in invalid(api.get(f"{API}/graph?as_of=yesterday"))
    assert "%2B" not in invalid(api.get(f"{API}/graph", params={"as_of": "yesterday 10am"}))


@pytest.mark.parametrize("until", ["9999-12-31T23:59:59.999999Z", "9999-12-31T23:59:59-23:59"])
def test_an_until_at_the_last_instant_keeps_an_event_stamped_then(
    api: TestClient, until: str
) -> None:
    """``until`` is exclusive: one at the last instant (given, or an offset carrying it past)
    excluded an event stamped exactly then. Nothing is after it: it bounds nothing."""
    last = "9999-12-31T23:59:59.999999Z"
    ingest(api, run_event("START", job=("ns", "last"), time=last))
    everything = api.get(f"{API}/events").json()["total"]
    for path in ("events", "runs"):
        answer = api.get(f"{API}/{path}", params={"until": until})
        assert answer.status_code == 200, answer.text
        assert answer.json()["total"] == api.get(f"{API}/{path}").json()["total"], path
    kept = api.get(f"{API}/events", params={"until": until, "since": "9999-12-31T00:00:00Z"})
    assert kept.json()["total"] == 1, kept.text
    assert everything > 1
    # Equal bounds stay an empty window.
    empty = api.get(f"{API}/events", params={"since": last, "until": last})
    assert empty.json()["total"] == 0, empty.text
