"""Reading columnLineage facets of every version (feast_lineage.column_lineage)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from feast_lineage.column_lineage import (
    WHOLE_DATASET,
    FieldEdge,
    Transformation,
    field_edges,
    field_hash,
    is_indirect,
)


def test_1_0_field_level_type_and_description_apply_to_every_input() -> None:
    facet = {
        "fields": {
            "email_hash": {
                "inputFields": [
                    {"namespace": "db", "name": "users", "field": "email"},
                    {"namespace": "db", "name": "users", "field": "salt"},
                ],
                "transformationType": "MASKED",
                "transformationDescription": "sha256(email || salt)",
            }
        }
    }
    masked = (Transformation("DIRECT", "MASKED", "sha256(email || salt)", True),)
    assert field_edges(facet) == [
        FieldEdge("email_hash", "db", "users", "email", masked),
        FieldEdge("email_hash", "db", "users", "salt", masked),
    ]


def test_1_2_transformations_per_input_and_dataset_level_inputs() -> None:
    facet = {
        "fields": {
            "total": {
                "inputFields": [
                    {
                        "namespace": "db",
                        "name": "orders",
                        "field": "amount",
                        "transformations": [
                            {"type": "DIRECT", "subtype": "AGGREGATION", "description": "sum"},
                            {"type": "INDIRECT", "subtype": "GROUP_BY", "masking": False},
                        ],
                    }
                ]
            }
        },
        "dataset": [
            {
                "namespace": "db",
                "name": "orders",
                "field": "status",
                "transformations": [{"type": "INDIRECT", "subtype": "FILTER"}],
            }
        ],
    }
    assert field_edges(facet) == [
        FieldEdge(
            "total",
            "db",
            "orders",
            "amount",
            (
                Transformation("DIRECT", "AGGREGATION", "sum", None),
                Transformation("INDIRECT", "GROUP_BY", None, False),
            ),
        ),
        FieldEdge(
            None, "db", "orders", "status", (Transformation("INDIRECT", "FILTER", None, None),)
        ),
    ]


def test_an_input_listed_twice_is_one_edge_with_both_transformations() -> None:
    item = {"namespace": "db", "name": "t", "field": "a"}
    facet = {
        "fields": {
            "x": {
                "inputFields": [
                    {**item, "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}]},
                    {**item, "transformations": [{"type": "INDIRECT", "subtype": "JOIN"}]},
                    {**item, "transformations": [{"type": "DIRECT", "subtype": "IDENTITY"}]},
                ]
            }
        }
    }
    (edge,) = field_edges(facet)
    assert [x.subtype for x in edge.transformations] == ["IDENTITY", "JOIN"]


def test_malformed_entries_state_no_edge() -> None:
    facet = {
        "fields": {
            "x": {
                "inputFields": [
                    {"name": "t", "field": "a"},  # no namespace (Spark JDBC)
                    {"namespace": "db", "name": "", "field": "a"},
                    {"namespace": "db", "name": "t", "field": 3},
                    "not an object",
                    {"namespace": "db", "name": "t", "field": "ok", "transformations": [{}]},
                ]
            },
            "y": "not an object",
            "": {"inputFields": [{"namespace": "db", "name": "t", "field": "a"}]},
        },
        "dataset": "not a list",
    }
    assert field_edges(facet) == [FieldEdge("x", "db", "t", "ok", ())]
    assert field_edges(None) == field_edges({}) == field_edges({"fields": []}) == []


def test_indirect_only_when_every_transformation_is() -> None:
    direct, indirect = (
        Transformation("DIRECT", None, None, None),
        Transformation("INDIRECT", None, None, None),
    )
    assert is_indirect((indirect,))
    assert not is_indirect((indirect, direct))
    assert not is_indirect(())  # no type known: a plain dependency, shown as direct
    assert is_indirect([{"type": "INDIRECT"}])


def test_field_hashes_leave_zero_to_the_whole_dataset() -> None:
    assert field_hash(None) == WHOLE_DATASET == 0
    assert field_hash("a") != field_hash("b")
    assert field_hash("a") != WHOLE_DATASET


def test_empty_deprecated_fields_are_absent() -> None:
    facet = {
        "fields": {
            "x": {
                "inputFields": [{"namespace": "db", "name": "t", "field": "a"}],
                "transformationType": "",
                "transformationDescription": "",
            }
        }
    }
    assert field_edges(facet) == [FieldEdge("x", "db", "t", "a", ())]


SPEC_EXAMPLES = (
    Path(__file__).resolve().parents[2]
    / "shared"
    / "openlineage"
    / "spec"
    / "facet_tests"
    / "ColumnLineageDatasetFacet"
)


@pytest.mark.parametrize("example", sorted(SPEC_EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_the_specs_own_examples_state_one_edge_per_input_entry(example: Path) -> None:
    """1.json is 1-1-0's shape (field-level type and description beside each input's own
    transformations), 2.json 1-2-0's: each input entry is one edge with its own
    transformations, which win over the deprecated field-level ones."""
    facet = orjson.loads(example.read_bytes())["columnLineage"]
    expected = set()
    for out, spec in facet["fields"].items():
        for item in spec["inputFields"]:
            own = tuple(
                (x["type"], x.get("subtype"), x.get("description"))
                for x in item.get("transformations", [])
            )
            expected.add((out, item["namespace"], item["name"], item["field"], own))
    for item in facet.get("dataset", []):
        own = tuple(
            (x["type"], x.get("subtype"), x.get("description"))
            for x in item.get("transformations", [])
        )
        expected.add((None, item["namespace"], item["name"], item["field"], own))
    edges = field_edges(facet)
    assert len(edges) == len(expected) > 0
    assert {
        (
            e.output_field,
            e.namespace,
            e.name,
            e.field,
            tuple((x.type, x.subtype, x.description) for x in e.transformations),
        )
        for e in edges
    } == expected


def test_the_spec_examples_are_there() -> None:
    assert len(list(SPEC_EXAMPLES.glob("*.json"))) >= 2
