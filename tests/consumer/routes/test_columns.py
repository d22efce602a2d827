"""Column lineage over HTTP: the field walk, current edges, aliases, Feast's rows, access."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from pydantic import TypeAdapter

from feast_lineage.consumer.schemas import ColumnLineage, DatasetPage, GraphPage
from tests.conftest import AppFactory
from tests.consumer.lineage import API, ingest
from tests.factories import at, dataset, dataset_event, facet, run_event, schema_facet
from tests.fixture_events import TemplateFiller, load_fixtures

# Routes on SQLite: the store tests run the same rules on the three databases
# (tests/consumer/store/read/test_columns.py, test_column_walk.py, test_columns_as_of.py;
# hidden namespaces: tests/consumer/access/test_authorizers.py, test_hidden_text.py).
pytestmark = pytest.mark.parametrize("head_store_url", ["sqlite"], indirect=True)


def cll(fields: dict[str, list[tuple[str, str, str, str]]], **extra: Any) -> dict[str, Any]:
    """A 1-2-0 columnLineage facet: output field -> [(ns, name, field, type)]."""
    return facet(
        fields={
            out: {
                "inputFields": [
                    {
                        "namespace": ns,
                        "name": name,
                        "field": f,
                        "transformations": [
                            {"type": kind, "subtype": "IDENTITY", "description": f"{f} as is"}
                        ],
                    }
                    for ns, name, f, kind in inputs
                ]
            }
            for out, inputs in fields.items()
        },
        **extra,
    )


def write(
    job: str,
    inputs: list[str],
    output: str,
    lineage: dict[str, Any],
    t: float = 0,
    ns: str = "lake",
) -> dict[str, Any]:
    return run_event(
        "COMPLETE",
        job=("spark", job),
        time=at(t),
        inputs=[dataset(ns, name) for name in inputs],
        outputs=[dataset(ns, output, columnLineage=lineage)],
    )


def chain() -> list[dict[str, Any]]:
    """raw(id, amount, country) -> j1 -> mid(id, total) -> j2 -> out(id, score)."""
    return [
        run_event(
            "COMPLETE",
            job=("spark", "j0"),
            outputs=[dataset("lake", "raw", schema=schema_facet("id", "amount", "country"))],
        ),
        write(
            "j1",
            ["raw"],
            "mid",
            cll(
                {
                    "id": [("lake", "raw", "id", "DIRECT")],
                    "total": [("lake", "raw", "amount", "DIRECT")],
                },
                dataset=[
                    {
                        "namespace": "lake",
                        "name": "raw",
                        "field": "country",
                        "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
                    }
                ],
            ),
        ),
        write(
            "j2",
            ["mid"],
            "out",
            cll(
                {
                    "id": [("lake", "mid", "id", "DIRECT")],
                    "score": [
                        ("lake", "mid", "total", "DIRECT"),
                        ("lake", "mid", "id", "INDIRECT"),
                    ],
                }
            ),
        ),
    ]


def columns(client: TestClient, name: str, ns: str = "lake", **params: Any) -> dict[str, Any]:
    response = client.get(f"{API}/columns", params={"namespace": ns, "name": name, **params})
    assert response.status_code == 200, response.text
    body = response.json()
    TypeAdapter(ColumnLineage).validate_python(body)
    return body


def edge_set(body: dict[str, Any]) -> set[tuple[str, str]]:
    return {(e["source"], e["target"]) for e in body["edges"]}


def f(name: str, field: str | None, ns: str = "lake") -> str:
    return f"field:{ns}:{name}:{field}" if field is not None else f"dataset:{ns}:{name}"


def test_a_field_with_no_edges_is_still_a_field_node(client: TestClient) -> None:
    ingest(client, *chain())
    for params in (
        {"direction": "upstream", "depth": 3},  # a source column: nothing upstream
        {"direction": "both", "depth": 0},
    ):
        body = columns(client, "raw", field="amount", **params)
        assert [(n["id"], n["field"]) for n in body["nodes"]][:1] == [
            (f("raw", "amount"), "amount")
        ]
    assert columns(client, "raw", field="amount", direction="upstream")["edges"] == []


def test_one_field_upstream_walks_exact_depth_with_transformations(client: TestClient) -> None:
    ingest(client, *chain())
    body = columns(client, "out", field="score", direction="upstream", depth=1)
    assert edge_set(body) == {
        (f("mid", "total"), f("out", "score")),
        (f("mid", "id"), f("out", "score")),
    }
    assert {n["id"]: n["depth"] for n in body["nodes"]} == {
        f("out", "score"): 0,
        f("mid", "total"): 1,
        f("mid", "id"): 1,
    }
    deeper = columns(client, "out", field="score", direction="upstream", depth=2)
    assert edge_set(deeper) - edge_set(body) == {
        (f("raw", "amount"), f("mid", "total")),
        (f("raw", "id"), f("mid", "id")),
        (f("raw", "country"), f("mid", None)),  # a dataset-level input: to the whole dataset
    }
    raw_amount = next(n for n in deeper["nodes"] if n["id"] == f("raw", "amount"))
    assert raw_amount == {
        "id": f("raw", "amount"),
        "namespace": "lake",
        "name": "raw",
        "field": "amount",
        "type": "INT64",  # from raw's schema facet
        "depth": 2,
        "aliases": [],
    }
    score = {(e["source"], e["target"]): e for e in body["edges"]}
    direct = score[(f("mid", "total"), f("out", "score"))]
    assert direct["job"] == {"namespace": "spark", "name": "j2"}
    assert direct["origin"] == "observed"
    assert direct["indirect"] is False
    assert direct["transformations"] == [
        {"type": "DIRECT", "subtype": "IDENTITY", "description": "total as is", "masking": None}
    ]
    assert direct["run_id"]


def test_indirect_false_leaves_out_indirect_and_dataset_level_edges(client: TestClient) -> None:
    ingest(client, *chain())
    body = columns(client, "out", field="score", direction="upstream", depth=2, indirect="false")
    assert edge_set(body) == {
        (f("mid", "total"), f("out", "score")),
        (f("raw", "amount"), f("mid", "total")),
    }


def test_untyped_dataset_level_inputs_are_indirect_too(client: TestClient) -> None:
    untyped = facet(
        fields={"a": {"inputFields": [{"namespace": "lake", "name": "s", "field": "x"}]}},
        dataset=[{"namespace": "lake", "name": "s", "field": "k"}],
    )
    ingest(client, write("j", ["s"], "t", untyped))
    assert edge_set(columns(client, "s", direction="downstream")) == {
        (f("s", "x"), f("t", "a")),
        (f("s", "k"), f("t", None)),
    }
    assert edge_set(columns(client, "s", direction="downstream", indirect="false")) == {
        (f("s", "x"), f("t", "a"))
    }


def test_all_fields_downstream_and_both(client: TestClient) -> None:
    ingest(client, *chain())
    down = columns(client, "raw", direction="downstream", depth=1)
    assert edge_set(down) == {
        (f("raw", "id"), f("mid", "id")),
        (f("raw", "amount"), f("mid", "total")),
        (f("raw", "country"), f("mid", None)),
    }
    both = columns(client, "mid", depth=1)
    assert len(both["edges"]) == 3 + 3
    assert both["truncated"] is False
    few = columns(client, "mid", depth=1, limit=2)
    assert few["truncated"] is True
    assert len(few["nodes"]) == 2


def test_path_form_and_feast_rows(client: TestClient) -> None:
    ns = "s3://bucket/a"
    ingest(
        client,
        write("j", ["in/x"], "out/y", cll({"b": [(ns, "in/x", "a", "DIRECT")]}), ns=ns),
    )
    path = f"{API}/datasets/{quote(ns, safe='')}/{quote('out/y', safe='')}/columns"
    response = client.get(path, params={"direction": "upstream"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert edge_set(body) == {(f("in/x", "a", ns), f("out/y", "b", ns))}
    (row,) = body["column_lineage"]
    assert {k: v for k, v in row.items() if k not in ("run_id", "updated_at")} == {
        "dataset_namespace": ns,
        "dataset_name": "out/y",
        "output_field": "b",
        "input_namespace": ns,
        "input_name": "in/x",
        "input_field": "a",
        "transformation_type": "DIRECT",
        "transformation_description": "a as is",
        "transformations_json": '[{"type":"DIRECT","subtype":"IDENTITY","description":"a as is"}]',
        "direction": "upstream",
    }
    assert isinstance(row["updated_at"], int)
    assert row["run_id"]
    bad = client.get(f"{API}/datasets/{ns}/out/y/columns")
    assert bad.status_code == 400
    assert "%2F" in bad.json()["error"]["message"]


def test_an_unknown_field_lists_the_columns_column_lineage_names_beside_the_schema(
    client: TestClient,
) -> None:
    """A schema that lists some columns only (a feature view's features, not its entity key
    or timestamps): the columns column lineage names are traceable, and listed too."""
    schemas = [
        run_event(
            "COMPLETE",
            job=("spark", "describe"),
            time=at(1),
            outputs=[dataset("lake", "out", schema=schema_facet("score"))],
        )
    ]
    ingest(client, *chain(), *schemas)
    missing = client.get(
        f"{API}/columns", params={"namespace": "lake", "name": "out", "field": "nope"}
    )
    assert missing.status_code == 404, missing.text
    assert (
        missing.json()["error"]["message"] == "no column `nope` in out; its columns are score, id"
    )
    # A column lineage names, traced the way it has none: a column all the same (no edges).
    key = columns(client, "out", field="id", direction="downstream")
    assert key["edges"] == []
    assert f("out", "id") in {n["id"] for n in key["nodes"]}


def test_an_unknown_field_is_404_also_where_dataset_level_inputs_reach_every_field(
    client: TestClient,
) -> None:
    """mid's dataset-level input (raw.country, a filter or join) reaches each of mid's
    fields, so a walk from any field name finds it: that must not make `nope` a column."""
    describe = run_event(
        "COMPLETE",
        job=("spark", "describe"),
        time=at(1),
        outputs=[dataset("lake", "mid", schema=schema_facet("id", "total"))],
    )
    ingest(client, *chain(), describe)
    for direction in ("upstream", "both"):
        missing = client.get(
            f"{API}/columns",
            params={"namespace": "lake", "name": "mid", "field": "nope", "direction": direction},
        )
        assert missing.status_code == 404, missing.text
        assert (
            missing.json()["error"]["message"]
            == "no column `nope` in mid; its columns are id, total"
        )
    # A column of mid's schema gets the dataset-level input as before.
    total = columns(client, "mid", field="total", direction="upstream", depth=1)
    assert (f("raw", "country"), f("mid", None)) in edge_set(total)


def test_missing_dataset_is_404_and_bad_parameters_are_400(client: TestClient) -> None:
    ingest(client, *chain())
    missing = client.get(f"{API}/columns", params={"namespace": "lake", "name": "nope"})
    assert missing.status_code == 404
    for params in ({"direction": "sideways"}, {"depth": -1}, {"limit": 0}, {"indirect": "maybe"}):
        response = client.get(
            f"{API}/columns", params={"namespace": "lake", "name": "out", **params}
        )
        assert response.status_code == 400, (params, response.text)
        assert next(iter(params)) in response.text


def test_an_unknown_field_of_a_dataset_with_a_schema_is_404_listing_its_columns(
    client: TestClient,
) -> None:
    ingest(client, *chain())
    for params in ({}, {"depth": 0}, {"direction": "upstream"}):
        response = client.get(
            f"{API}/columns", params={"namespace": "lake", "name": "raw", "field": "nope", **params}
        )
        assert response.status_code == 404, (params, response.text)
        assert response.json()["error"] == {
            "status": 404,
            "code": "not_found",
            "message": "no column `nope` in raw; its columns are id, amount, country",
        }
    # The path form answers the same.
    path = client.get(f"{API}/datasets/lake/raw/columns", params={"field": "nope"})
    assert path.status_code == 404
    assert "its columns are id, amount, country" in path.text
    # No schema facet (mid): the field is named as asked; a field only column
    # lineage names (out.score, not in any schema) is a field all the same.
    assert f("mid", "nope") in {n["id"] for n in columns(client, "mid", field="nope")["nodes"]}
    assert columns(client, "out", field="score", direction="upstream")["edges"]


def test_current_edges_follow_the_latest_facet_of_each_writer(client: TestClient) -> None:
    first = cll({"x": [("lake", "a", "old", "DIRECT")]})
    second = cll({"x": [("lake", "a", "new", "DIRECT")]})
    ingest(
        client,
        write("w1", ["a"], "t", second, t=2),  # arrives first, is the latest
        write("w1", ["a"], "t", first, t=1),
        write("w2", ["b"], "t", cll({"x": [("lake", "b", "y", "DIRECT")]}), t=1),
    )
    body = columns(client, "t", direction="upstream", depth=1)
    assert edge_set(body) == {(f("a", "new"), f("t", "x")), (f("b", "y"), f("t", "x"))}
    # w2 stops writing t: its edges leave, w1's stay.
    ingest(
        client,
        run_event("COMPLETE", job=("spark", "w2"), time=at(5), outputs=[dataset("lake", "u")]),
    )
    assert edge_set(columns(client, "t", direction="upstream", depth=1)) == {
        (f("a", "new"), f("t", "x"))
    }


def test_start_running_complete_repeat_do_not_multiply_edges(client: TestClient) -> None:
    lineage = cll({"x": [("lake", "a", "y", "DIRECT")]})
    events = [
        {**write("j", ["a"], "t", lineage, t=i), "eventType": kind, "run": {"runId": RUN}}
        for i, kind in enumerate(("START", "RUNNING", "COMPLETE"))
    ]
    ingest(client, *events)
    body = columns(client, "t", direction="upstream")
    assert len(body["edges"]) == 1
    assert len(body["column_lineage"]) == 1


RUN = "0190e6a1-7c3f-7b6e-9a1d-3f2b8c4d5e6f"


def test_a_field_of_an_alias_is_the_same_node(client: TestClient) -> None:
    link = facet(
        identifiers=[
            {"namespace": "hive", "name": "db.t", "type": "TABLE"},
            {"namespace": "warehouse", "name": "t", "type": "TABLE"},
        ]
    )
    ingest(
        client,
        run_event("COMPLETE", job=("spark", "cat"), outputs=[dataset("lake", "t", symlinks=link)]),
        run_event("COMPLETE", job=("spark", "reader"), inputs=[dataset("warehouse", "t")]),
        write("j", ["a"], "t", cll({"x": [("lake", "a", "y", "DIRECT")]}), t=1),
        # downstream of the alias: written from hive's name of the same table
        write("k", [], "u", cll({"z": [("hive", "db.t", "x", "DIRECT")]}), t=2),
    )
    body = columns(client, "t", field="x", depth=2)
    assert edge_set(body) == {(f("a", "y"), f("t", "x")), (f("t", "x"), f("u", "z"))}
    node = next(n for n in body["nodes"] if n["id"] == f("t", "x"))
    assert node["aliases"] == [
        {"namespace": "hive", "name": "db.t"},
        {"namespace": "warehouse", "name": "t"},
    ]
    # An alias with no column edges of its own offers the column view too.
    (item,) = client.get(f"{API}/datasets", params={"namespace": "warehouse"}).json()["datasets"]
    assert item["has_column_lineage"] is True
    via_alias = columns(client, "db.t", ns="hive", field="x", depth=1)
    assert edge_set(via_alias) == {
        (f("a", "y"), "field:hive:db.t:x"),
        ("field:hive:db.t:x", f("u", "z")),
    }


def _real(path: str) -> list[dict[str, Any]]:
    """A shared fixture's events, filled in (Spark's partial-match events name no job)."""
    (fixture,) = (f for f in load_fixtures() if f.name == path)
    value = TemplateFiller(fixture.group).fill_file(fixture.value)
    events: list[dict[str, Any]] = value if isinstance(value, list) else [value]
    for event in events:
        event["job"].setdefault("name", "spark_test_job")
    return events


def test_a_hive_table_is_named_after_the_table_not_its_location(client: TestClient) -> None:
    """Hive names its table and points at its files (a LOCATION symlink): the table's name
    is the group's, though ``file`` sorts before ``hive://``."""
    ingest(client, *_real("ol_hive/cllSimpleQueryMaskingComplete.json"))
    hive = "hive://localhost:9083"
    body = columns(client, "test.xxx", ns=hive, field="i", direction="upstream", depth=1)
    assert (f"field:{hive}:test.t1:a", f"field:{hive}:test.xxx:i") in edge_set(body)
    (t1,) = (n for n in body["nodes"] if n["depth"] == 1)
    assert (t1["namespace"], t1["name"]) == (hive, "test.t1")
    assert t1["aliases"] == [{"namespace": "file", "name": "/opt/hive/data/warehouse/test.db/t1"}]
    # Graph nodes say which names were written: the UI ranks the names it draws by it too.
    graph = client.get(f"{API}/graph").json()
    written = {n["name"]: n["written"] for n in graph["nodes"] if n["kind"] == "dataset"}
    assert written == {"test.t1": False, "test.xxx": True}


def test_a_path_spark_wrote_is_named_after_its_table(client: TestClient) -> None:
    """Spark writes a path and names its table (a TABLE symlink, never a dataset of its
    own): the table's name is the group's, though the path sorts first."""
    ingest(client, *_real("ol_spark_container/pysparkCTASWithColumnLineageEnd.json"))
    body = columns(client, "/tmp/ctas_load/temp", ns="file", field="a", direction="downstream")
    table = "field:file:/tmp/ctas_load:default.tbl1:a"
    assert edge_set(body) == {("field:file:/tmp/ctas_load/temp:a", table)}
    (tbl1,) = (n for n in body["nodes"] if n["id"] == table)
    assert tbl1["aliases"] == [{"namespace": "file", "name": "/tmp/ctas_load/tbl1"}]


def _orders_written_and_read_by_its_alias(client: TestClient, *later: Any) -> None:
    """warehouse/orders written (its id from src/id) at 0; archive/orders, linked to it by
    a VIEW symlink, read at 1: neither name is a table's. Then ``later``."""
    link = facet(identifiers=[{"namespace": "warehouse", "name": "orders", "type": "VIEW"}])
    ingest(
        client,
        write(
            "w", ["src"], "orders", cll({"id": [("lake", "src", "id", "DIRECT")]}), ns="warehouse"
        ),
        run_event(
            "COMPLETE",
            job=("spark", "r"),
            time=at(1),
            inputs=[dataset("archive", "orders", symlinks=link)],
        ),
        *later,
    )


def test_a_name_written_to_wins_over_one_only_read(client: TestClient) -> None:
    """Neither name is a table's: the one a job wrote names the group, not the first."""
    _orders_written_and_read_by_its_alias(client)
    body = columns(client, "src", field="id", direction="downstream")
    (orders,) = (n for n in body["nodes"] if n["depth"] == 1)
    assert (orders["namespace"], orders["name"]) == ("warehouse", "orders")
    assert orders["aliases"] == [{"namespace": "archive", "name": "orders"}]


def test_a_name_written_by_the_instant_wins_as_of_it(client: TestClient) -> None:
    """As of an instant, a name written by then names the group: one first written later
    does not, as on a store of the events up to then, and the graph's nodes then say so."""
    # archive's name declared at 10: both were written since, the first by namespace wins
    _orders_written_and_read_by_its_alias(client, dataset_event("archive", "orders", time=at(10)))
    now = columns(client, "src", field="id", direction="downstream")
    (orders,) = (n for n in now["nodes"] if n["depth"] == 1)
    assert (orders["namespace"], orders["name"]) == ("archive", "orders")
    then = columns(client, "src", field="id", direction="downstream", as_of=at(5))
    (orders,) = (n for n in then["nodes"] if n["depth"] == 1)
    assert (orders["namespace"], orders["name"]) == ("warehouse", "orders")
    assert orders["aliases"] == [{"namespace": "archive", "name": "orders"}]
    for when, archive in ((at(5), False), (at(10), True)):
        graph = client.get(f"{API}/graph", params={"as_of": when}).json()
        written = {(n["namespace"], n["name"]): n["written"] for n in graph["nodes"]}
        assert written == {
            ("warehouse", "src"): False,
            ("warehouse", "orders"): True,
            ("archive", "orders"): archive,
            ("spark", "w"): False,
            ("spark", "r"): False,
        }, when


def test_a_feast_object_names_its_group_before_its_table(client: TestClient) -> None:
    """Feast's data source reads a table another job wrote: Feast's name, as the graph draws it."""
    table = {"namespace": "bigquery", "name": "proj.ds.trips", "type": "TABLE"}
    source = dataset(
        "ml_team",
        "driver_source",
        feast_data_source=facet(name="driver_source", source_type="BigQuerySource"),
        symlinks=facet(identifiers=[table]),
    )
    ingest(
        client,
        write(
            "w",
            ["raw"],
            "proj.ds.trips",
            cll({"id": [("lake", "raw", "id", "DIRECT")]}),
            ns="bigquery",
        ),
        run_event(
            "COMPLETE",
            job=("ml_team", "feast_apply_feature_view_driver_fv"),
            inputs=[source],
            outputs=[
                dataset(
                    "ml_team",
                    "driver_fv",
                    feast_feature_view=facet(name="driver_fv", features=["id"]),
                    columnLineage=cll({"id": [("bigquery", "proj.ds.trips", "id", "DIRECT")]}),
                )
            ],
        ),
    )
    body = columns(client, "driver_fv", ns="ml_team", field="id", direction="upstream", depth=1)
    (trips,) = (n for n in body["nodes"] if n["depth"] == 1)
    assert (trips["namespace"], trips["name"]) == ("ml_team", "driver_source")
    assert trips["aliases"] == [{"namespace": "bigquery", "name": "proj.ds.trips"}]


def test_an_alias_two_symlinks_away_offers_the_column_view(client: TestClient) -> None:
    def links(ns: str, name: str) -> dict[str, Any]:
        return facet(identifiers=[{"namespace": ns, "name": name, "type": "TABLE"}])

    ingest(
        client,
        write("j", ["a"], "t", cll({"x": [("lake", "a", "y", "DIRECT")]})),
        run_event(
            "COMPLETE",
            job=("spark", "cat"),
            outputs=[dataset("lake", "t", symlinks=links("hive", "db.t"))],
        ),
        run_event(
            "COMPLETE",
            job=("spark", "cat2"),
            outputs=[dataset("hive", "db.t", symlinks=links("warehouse", "t"))],
        ),
        run_event("COMPLETE", job=("spark", "reader"), inputs=[dataset("warehouse", "t")]),
    )
    (item,) = client.get(f"{API}/datasets", params={"namespace": "warehouse"}).json()["datasets"]
    assert item["has_column_lineage"] is True
    body = columns(client, "t", ns="warehouse", field="x", direction="upstream", depth=1)
    assert edge_set(body) == {(f("a", "y"), "field:warehouse:t:x")}


def test_has_column_lineage_on_graph_nodes_and_datasets(client: TestClient) -> None:
    ingest(
        client,
        *chain(),
        run_event("COMPLETE", job=("spark", "z"), outputs=[dataset("lake", "plain")]),
    )
    graph = client.get(f"{API}/graph").json()
    TypeAdapter(GraphPage).validate_python(graph)
    flags = {n["id"]: n.get("has_column_lineage") for n in graph["nodes"] if n["kind"] == "dataset"}
    assert flags == {
        "dataset:lake:raw": True,
        "dataset:lake:mid": True,
        "dataset:lake:out": True,
        "dataset:lake:plain": False,
    }
    page = client.get(f"{API}/datasets").json()
    DatasetPage.model_validate(page)
    assert {i["dataset_name"]: i["has_column_lineage"] for i in page["datasets"]} == {
        "raw": True,
        "mid": True,
        "out": True,
        "plain": False,
    }


def test_has_column_lineage_as_of_an_instant_is_the_column_lineage_then(
    client: TestClient,
) -> None:
    """mid is written at 5 with no column lineage, at 20 with it; hive's db.mid is its
    alias from 10: as of 15 neither has column lineage, as of 25 both do (the alias
    through the symlink current then), as the column view answers then."""
    link = facet(identifiers=[{"namespace": "hive", "name": "db.mid", "type": "TABLE"}])
    ingest(
        client,
        run_event("COMPLETE", job=("spark", "j1"), time=at(5), outputs=[dataset("lake", "mid")]),
        run_event(
            "COMPLETE",
            job=("spark", "cat"),
            time=at(10),
            outputs=[dataset("lake", "mid", symlinks=link)],
        ),
        run_event(
            "COMPLETE", job=("spark", "reader"), time=at(12), inputs=[dataset("hive", "db.mid")]
        ),
        write("j1", ["raw"], "mid", cll({"total": [("lake", "raw", "amount", "DIRECT")]}), t=20),
    )

    def flags(as_of: str) -> dict[str, Any]:
        graph = client.get(f"{API}/graph", params={"as_of": as_of}).json()
        out = {n["id"]: n["has_column_lineage"] for n in graph["nodes"] if n["kind"] == "dataset"}
        page = client.get(f"{API}/datasets", params={"as_of": as_of}).json()["datasets"]
        assert {
            f"dataset:{i['dataset_namespace']}:{i['dataset_name']}": i["has_column_lineage"]
            for i in page
        } == out
        node = {"type": "dataset", "namespace": "lake", "name": "mid", "depth": 0, "as_of": as_of}
        (details,) = client.get(f"{API}/graph/node", params=node).json()["nodes"]
        assert details["has_column_lineage"] == out["dataset:lake:mid"]
        return out

    assert flags(at(15)) == {"dataset:lake:mid": False, "dataset:hive:db.mid": False}
    then = flags(at(25))
    assert then["dataset:lake:mid"] is True
    assert then["dataset:hive:db.mid"] is True  # its alias's fields
    assert then["dataset:lake:raw"] is True


# --- access ---------------------------------------------------------------------

KEY = "key-seen"
AUTHORIZER = {"type": "api_keys", "keys": [{"key": KEY, "projects": ["seen"]}]}


@pytest.fixture
def scoped(make_client: AppFactory) -> TestClient:
    client = make_client(api_key="admin-key", authorizer=AUTHORIZER)
    events = [
        write(
            "j",
            ["a"],
            "t",
            cll({"x": [("seen", "a", "y", "DIRECT"), ("hidden", "h", "secret", "DIRECT")]}),
            ns="seen",
        ),
        write("k", ["t"], "u", cll({"z": [("seen", "t", "x", "DIRECT")]}), ns="seen", t=1),
        write("m", [], "v", cll({"w": [("seen", "u", "z", "DIRECT")]}), ns="hidden", t=2),
    ]
    ingest(client, *events, headers={"X-API-Key": "admin-key"})
    return client


def test_a_hidden_namespace_field_never_appears_and_descriptions_hide(scoped: TestClient) -> None:
    headers = {"X-API-Key": KEY}
    body = scoped.get(
        f"{API}/columns", params={"namespace": "seen", "name": "t"}, headers=headers
    ).json()
    TypeAdapter(ColumnLineage).validate_python(body)
    assert "hidden" not in str(body)
    assert edge_set(body) == {
        (f("a", "y", "seen"), f("t", "x", "seen")),
        (f("t", "x", "seen"), f("u", "z", "seen")),
    }
    by_pair = {(e["source"], e["target"]): e for e in body["edges"]}
    # x has an input the caller may not see: its descriptions are withheld ...
    (into_x,) = by_pair[(f("a", "y", "seen"), f("t", "x", "seen"))]["transformations"]
    assert into_x["description"] is None
    assert into_x["type"] == "DIRECT"
    # ... z's inputs are all visible: shown.
    (into_z,) = by_pair[(f("t", "x", "seen"), f("u", "z", "seen"))]["transformations"]
    assert into_z["description"] == "x as is"
    assert all(
        r["transformation_description"] is None
        for r in body["column_lineage"]
        if r["output_field"] == "x"
    )
    everything = scoped.get(
        f"{API}/columns",
        params={"namespace": "seen", "name": "t"},
        headers={"X-API-Key": "admin-key"},
    ).json()
    assert "hidden" in str(everything)


def test_a_hidden_dataset_level_input_withholds_every_fields_descriptions(
    make_client: AppFactory,
) -> None:
    client = make_client(api_key="admin-key", authorizer=AUTHORIZER)
    lineage = cll(
        {"x": [("seen", "a", "y", "DIRECT")]},
        dataset=[
            {
                "namespace": "hidden",
                "name": "h",
                "field": "region",
                "transformations": [
                    {"type": "INDIRECT", "subtype": "FILTER", "description": "region = 'EU'"}
                ],
            }
        ],
    )
    ingest(client, write("j", ["a"], "t", lineage, ns="seen"), headers={"X-API-Key": "admin-key"})
    as_seen = client.get(
        f"{API}/columns", params={"namespace": "seen", "name": "t"}, headers={"X-API-Key": KEY}
    ).json()
    assert "hidden" not in str(as_seen)
    assert "EU" not in str(as_seen)
    (edge,) = as_seen["edges"]
    assert edge["transformations"] == [
        {"type": "DIRECT", "subtype": "IDENTITY", "description": None, "masking": None}
    ]
    as_admin = client.get(
        f"{API}/columns",
        params={"namespace": "seen", "name": "t"},
        headers={"X-API-Key": "admin-key"},
    ).json()
    assert "y as is" in str(as_admin)
    assert "EU" in str(as_admin)


def test_an_alias_in_a_hidden_namespace_is_never_named_nor_walked(
    make_client: AppFactory,
) -> None:
    client = make_client(api_key="admin-key", authorizer=AUTHORIZER)
    link = facet(identifiers=[{"namespace": "hidden", "name": "t_copy", "type": "TABLE"}])
    ingest(
        client,
        run_event("COMPLETE", job=("seen", "cat"), outputs=[dataset("seen", "t", symlinks=link)]),
        write("j", ["a"], "t", cll({"x": [("seen", "a", "y", "DIRECT")]}), ns="seen", t=1),
        # downstream through the hidden alias's name of the same table
        write("k", [], "u", cll({"z": [("hidden", "t_copy", "x", "DIRECT")]}), ns="seen", t=2),
        headers={"X-API-Key": "admin-key"},
    )
    as_seen = client.get(
        f"{API}/columns",
        params={"namespace": "seen", "name": "t", "field": "x", "depth": 2},
        headers={"X-API-Key": KEY},
    ).json()
    assert "hidden" not in str(as_seen)
    assert "t_copy" not in str(as_seen)
    assert edge_set(as_seen) == {(f("a", "y", "seen"), f("t", "x", "seen"))}
    as_admin = client.get(
        f"{API}/columns",
        params={"namespace": "seen", "name": "t", "field": "x", "depth": 2},
        headers={"X-API-Key": "admin-key"},
    ).json()
    assert (f("t", "x", "seen"), f("u", "z", "seen")) in edge_set(as_admin)
    node = next(n for n in as_admin["nodes"] if n["id"] == f("t", "x", "seen"))
    assert node["aliases"] == [{"namespace": "hidden", "name": "t_copy"}]


def test_a_hidden_dataset_is_answered_like_a_missing_one(scoped: TestClient) -> None:
    response = scoped.get(
        f"{API}/columns", params={"namespace": "hidden", "name": "v"}, headers={"X-API-Key": KEY}
    )
    assert response.status_code == 404
    assert "hidden" in response.json()["error"]["message"]  # it names what was asked, only
    flags = scoped.get(f"{API}/datasets", headers={"X-API-Key": KEY}).json()["datasets"]
    assert {i["dataset_name"]: i["has_column_lineage"] for i in flags} == {
        "a": True,
        "t": True,
        "u": True,
    }


def test_as_of_answers_the_column_lineage_and_schema_of_then(client: TestClient) -> None:
    """build reads old.x into out.x at 10 (schema x), then new.x at 20 (schema x, y)."""
    for time, source, fields in ((20, "new", ("x", "y")), (10, "old", ("x",))):
        ingest(
            client,
            run_event(
                "COMPLETE",
                job=("spark", "build"),
                time=at(time),
                inputs=[dataset("lake", source)],
                outputs=[
                    dataset(
                        "lake",
                        "out",
                        columnLineage=cll({"x": [("lake", source, "x", "DIRECT")]}),
                        schema=schema_facet(*fields),
                    )
                ],
            ),
        )
    path = f"{API}/columns"

    def sources(**params: Any) -> set[str]:
        body = client.get(path, params={"namespace": "lake", "name": "out", **params}).json()
        return {e["source"] for e in body["edges"]}

    assert sources() == {"field:lake:new:x"}
    assert sources(as_of=at(15)) == {"field:lake:old:x"}
    assert sources(as_of=at(10_000)) == {"field:lake:new:x"}  # the future is now
    then = client.get(path, params={"namespace": "lake", "name": "out", "as_of": at(15)}).json()
    assert then["as_of"] == at(15)
    unknown_then = {"namespace": "lake", "name": "out", "field": "y", "as_of": at(15)}
    missing = client.get(path, params=unknown_then)
    assert missing.status_code == 404
    assert "its columns are x" in missing.json()["error"]["message"]
    assert client.get(path, params={**unknown_then, "as_of": at(25)}).status_code == 200
    before = client.get(path, params={"namespace": "lake", "name": "out", "as_of": at(5)})
    assert before.status_code == 404
    bad = client.get(path, params={"namespace": "lake", "name": "out", "as_of": "Tuesday"})
    assert bad.status_code == 400
    assert "as_of" in bad.json()["error"]["message"]


def test_since_until_answers_the_column_lineage_the_windows_runs_stated(
    client: TestClient,
) -> None:
    """build reads old.x into out.x in a run of 10 to 12, then new.x in a run of 20 to 22."""
    for start, source in ((20, "new"), (10, "old")):
        run = str(uuid.uuid4())
        out = dataset("lake", "out", columnLineage=cll({"x": [("lake", source, "x", "DIRECT")]}))
        for kind, time in (("START", start), ("COMPLETE", start + 2)):
            ingest(
                client,
                run_event(
                    kind,
                    run_id=run,
                    job=("spark", "build"),
                    time=at(time),
                    inputs=[dataset("lake", source)],
                    outputs=[out],
                ),
            )
    base = {"namespace": "lake", "name": "out"}
    encoded = f"{API}/datasets/lake/out/columns"

    def sources(path: str, **params: Any) -> set[str]:
        query = {**base, **params} if path == f"{API}/columns" else params
        response = client.get(path, params=query)
        assert response.status_code == 200, response.text
        return {e["source"] for e in response.json()["edges"]}

    for path in (f"{API}/columns", encoded):
        assert sources(path, since=at(0), until=at(15)) == {"field:lake:old:x"}
        assert sources(path, since=at(12), until=at(21)) == {"field:lake:old:x", "field:lake:new:x"}
        assert sources(path, since=at(13)) == {"field:lake:new:x"}
        assert sources(path, until=at(10)) == set()  # a run starting at until is not in it
    body = client.get(f"{API}/columns", params={**base, "since": at(13)}).json()
    assert (body["as_of"], body["since"], body["until"]) == (None, at(13), None)
    both = client.get(f"{API}/columns", params={**base, "as_of": at(15), "since": at(0)})
    assert both.status_code == 400
    assert "since/until" in both.json()["error"]["message"]
    swapped = client.get(encoded, params={"since": at(15), "until": at(0)})
    assert swapped.status_code == 400
    assert "'since'" in swapped.json()["error"]["message"]
