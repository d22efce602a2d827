"""Redaction of references to hidden namespaces, whatever facet holds them."""

from __future__ import annotations

from feast_lineage.consumer import redaction
from feast_lineage.consumer.access.scope import Scope

SCOPE = Scope.of(["seen"])


def test_any_object_naming_a_hidden_namespace_is_dropped_at_any_depth() -> None:
    facets = {
        "custom": {"deep": [{"namespace": "hidden", "name": "a"}, {"namespace": "seen", "x": 1}]},
        "ref": {"namespace": "hidden", "name": "b"},  # a facet that is itself a reference
        "mixed": {"to": {"namespace": "hidden"}, "keep": "yes"},
        "odd": {"namespace": 3, "name": "not a reference"},
    }
    assert redaction.facets(facets, SCOPE) == {
        "custom": {"deep": [{"namespace": "seen", "x": 1}]},
        "mixed": {"keep": "yes"},
        "odd": {"namespace": 3, "name": "not a reference"},
    }


def test_known_facets_keep_their_shape() -> None:
    parent = {"job": {"namespace": "seen", "name": "p"}, "root": {"job": {"namespace": "hidden"}}}
    links = {"identifiers": [{"namespace": "hidden", "name": "x"}]}
    out = redaction.facets({"parent": parent, "symlinks": links}, SCOPE)
    assert out == {"parent": {"job": {"namespace": "seen", "name": "p"}}}
    gone = redaction.facets({"parent": {"job": {"namespace": "hidden", "name": "p"}}}, SCOPE)
    assert gone == {}


def test_everything_scope_returns_the_stored_object() -> None:
    facets = {"ref": {"namespace": "hidden"}}
    assert redaction.facets(facets, Scope.everything()) is facets


def _field(*inputs: tuple[str, str]) -> dict[str, object]:
    return {
        "inputFields": [
            {"namespace": ns, "name": "t", "field": f, "transformations": [{"description": f}]}
            for ns, f in inputs
        ],
        "transformationDescription": "text",
    }


def test_descriptions_go_with_a_hidden_input_of_their_field() -> None:
    lineage = {"fields": {"a": _field(("hidden", "x"), ("seen", "y")), "b": _field(("seen", "z"))}}
    out = redaction.facets({"columnLineage": lineage}, SCOPE)["columnLineage"]["fields"]
    assert out["a"] == {
        "inputFields": [
            {"namespace": "seen", "name": "t", "field": "y"} | {"transformations": [{}]}
        ]
    }
    assert out["b"] == _field(("seen", "z"))  # every input visible: its text stays


def test_a_hidden_dataset_level_input_withholds_the_text_of_every_field() -> None:
    lineage = {"fields": {"b": _field(("seen", "z"))}, "dataset": [{"namespace": "hidden"}]}
    out = redaction.facets({"columnLineage": lineage, "doc": {"description": "d"}}, SCOPE)
    assert out["columnLineage"] == {
        "fields": {
            "b": {
                "inputFields": [
                    {"namespace": "seen", "name": "t", "field": "z", "transformations": [{}]}
                ]
            }
        },
        "dataset": [],
    }
    assert out["doc"] == {"description": "d"}  # another facet keeps its text


def test_a_hidden_lineage_target_withholds_nothing_of_the_other_entries() -> None:
    entries = [{"namespace": "hidden", "name": "x"}, {"namespace": "seen", "description": "d"}]
    out = redaction.facets({"lineage": {"entries": entries}}, SCOPE)
    assert out == {"lineage": {"entries": [{"namespace": "seen", "description": "d"}]}}


def test_job_dependencies_on_hidden_jobs_go_whole() -> None:
    deps = {
        "upstream": [
            {"job": {"namespace": "hidden", "name": "a"}, "run": {"runId": "r"}},
            {"job": {"namespace": "seen", "name": "b"}},
        ],
        "trigger_rule": "ALL_SUCCESS",
    }
    out = redaction.facets({"jobDependencies": deps}, SCOPE)
    assert out == {
        "jobDependencies": {
            "upstream": [{"job": {"namespace": "seen", "name": "b"}}],
            "trigger_rule": "ALL_SUCCESS",
        }
    }
