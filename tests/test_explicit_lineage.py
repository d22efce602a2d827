"""Reading explicit lineage facets: each of the spec's examples, and jobDependencies."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from feast_lineage.explicit_lineage import (
    DATASET_LINEAGE,
    DECLARED,
    JOB_DEPENDENCIES,
    JOB_LINEAGE,
    OBSERVED,
    Node,
    dataset_facet,
    event_statements,
    job_facet,
)
from tests.conftest import SHARED
from tests.factories import dataset, dataset_event, facet, job_event, run_event

EXAMPLES = SHARED / "openlineage" / "spec" / "facet_tests" / "LineageFacet"
WH = "postgresql://warehouse:5432"
AF = "airflow://production"
OWN = Node("job", "airflow://production", "own.job")


def example(name: str) -> dict[str, Any]:
    value: dict[str, Any] = orjson.loads(Path(EXAMPLES / f"{name}.json").read_bytes())["lineage"]
    return value


def job(ns: str, name: str) -> Node:
    return Node("job", ns, name)


def ds(ns: str, name: str) -> Node:
    return Node("dataset", ns, name)


def edges(statement: Any) -> set[tuple[Node, Node, str]]:
    return {(e.src, e.dst, e.edge_type) for e in statement.edges}


# What each example describes, as (source, target, edge type); the job facet's
# own job is OWN, the dataset facet's dataset is public.customer_summary.
EXPECTED = {
    "dataset-to-job": {(ds(WH, "public.staging_orders"), job(AF, "daily.load"), "input")},
    "generator": {(OWN, ds(WH, "public.extracted_data"), "output")},
    "implicit-job": {(ds("postgresql://production:5432", "public.transactions"), OWN, "input")},
    "job-to-dataset": {(job(AF, "daily.extract"), ds(WH, "public.daily_summary"), "output")},
    "job-to-job": {(job(AF, "daily.transform"), job(AF, "daily.load"), "job_to_job")},
    "mixed-sources": {
        (ds(WH, "public.orders"), OWN, "input"),
        (OWN, ds(WH, "public.enriched_orders"), "output"),
        (job(AF, "daily.enrichment"), ds(WH, "public.enriched_orders"), "output"),
    },
}


def test_every_example_of_the_spec_is_checked() -> None:
    names = {p.stem for p in EXAMPLES.glob("*.json")}
    assert names == {*EXPECTED, "dataset-to-dataset"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_job_facet_example_yields_exactly_its_edges(name: str) -> None:
    statement = job_facet(example(name), OWN, DECLARED)
    assert statement is not None
    assert (statement.facet, statement.owner, statement.origin) == (JOB_LINEAGE, OWN, DECLARED)
    assert edges(statement) == EXPECTED[name]


def test_the_dataset_to_dataset_example_needs_no_job() -> None:
    target = ds(WH, "public.customer_summary")
    statement = dataset_facet(example("dataset-to-dataset"), target, None, DECLARED)
    assert statement is not None
    assert statement.facet == DATASET_LINEAGE
    assert edges(statement) == {(ds(WH, "public.customers"), target, "dataset_to_dataset")}
    (column_target, columns) = statement.columns[0]
    assert column_target == target
    assert columns["fields"]["customer_id"]["inputFields"] == [
        {
            "namespace": WH,
            "name": "public.customers",
            "field": "id",
            "transformations": [{"type": "DIRECT", "subtype": "IDENTITY", "masking": False}],
        }
    ]


def test_field_entries_become_column_lineage_of_dataset_targets_only() -> None:
    mixed = job_facet(example("mixed-sources"), OWN, OBSERVED)
    assert mixed is not None
    assert [(t, c["fields"]) for t, c in mixed.columns] == [
        (
            ds(WH, "public.enriched_orders"),
            {
                "customer_segment": {
                    "inputFields": [
                        {"namespace": WH, "name": "public.orders", "field": "customer_id"}
                    ]
                }
            },
        )
    ]
    # A field of a job target's input, and a field fed only by a job, name no source field.
    for name in ("dataset-to-job", "generator", "job-to-job"):
        statement = job_facet(example(name), OWN, OBSERVED)
        assert statement is not None, name
        assert statement.columns == (), name


def test_malformed_entries_and_self_loops_state_nothing() -> None:
    statement = job_facet(
        facet(
            entries=[
                {"type": "JOB", "namespace": "only-namespace", "inputs": [{"type": "JOB"}]},
                {"type": "DATASET", "name": "no namespace", "inputs": []},
                {"type": "JOB", "inputs": [{"type": "JOB"}, {"type": "TABLE", "name": "x"}]},
                "not an entry",
            ]
        ),
        OWN,
        DECLARED,
    )
    assert statement is not None
    assert statement.edges == ()
    assert job_facet({"no": "entries"}, OWN, DECLARED) is None


def test_job_dependencies_are_job_to_job_edges_of_the_run() -> None:
    event = run_event(
        "START",
        job=("airflow://production", "own.job"),
        run_facets={
            "jobDependencies": facet(
                upstream=[
                    {"job": {"namespace": AF, "name": "extract"}, "run": {"runId": "x"}},
                    {"job": {"namespace": AF}},  # no name: skipped
                ],
                downstream=[{"job": {"namespace": AF, "name": "report"}}],
                trigger_rule="ALL_SUCCESS",
            )
        },
    )
    (statement,) = event_statements(event)
    assert (statement.facet, statement.origin) == (JOB_DEPENDENCIES, OBSERVED)
    assert edges(statement) == {
        (job(AF, "extract"), OWN, "job_to_job"),
        (OWN, job(AF, "report"), "job_to_job"),
    }


def test_the_event_kind_gives_the_origin() -> None:
    lineage = example("implicit-job")
    declared = event_statements(job_event("airflow://production", "own.job", lineage=lineage))
    observed = event_statements(
        run_event(job=("airflow://production", "own.job"), job_facets={"lineage": lineage})
    )
    assert [s.origin for s in declared] == [DECLARED]
    assert [s.origin for s in observed] == [OBSERVED]
    assert edges(declared[0]) == edges(observed[0]) == EXPECTED["implicit-job"]
    on_dataset = event_statements(
        dataset_event(WH, "public.customer_summary", lineage=example("dataset-to-dataset"))
    )
    assert [(s.facet, s.origin) for s in on_dataset] == [(DATASET_LINEAGE, DECLARED)]
    on_output = event_statements(
        run_event(outputs=[dataset(WH, "t", lineage=example("dataset-to-dataset"))])
    )
    assert [(s.facet, s.origin, s.owner) for s in on_output] == [
        (DATASET_LINEAGE, OBSERVED, ds(WH, "t"))
    ]
