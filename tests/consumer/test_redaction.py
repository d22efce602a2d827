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
