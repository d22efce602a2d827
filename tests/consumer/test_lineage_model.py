from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from feast_lineage.consumer.lineage_model import NodeId, ways


@pytest.mark.parametrize(
    ("node", "text"),
    [
        (NodeId.dataset("s3://b", "orders"), "dataset:s3://b:orders"),
        (NodeId.of_field("s3://b", "orders", "id"), "field:s3://b:orders:id"),
        (NodeId.of_field("s3://b", "orders", None), "dataset:s3://b:orders"),
        (NodeId.job("spark://ml", "build"), "job:spark://ml:build"),
        (
            NodeId.run("0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"),
            "run:0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b",
        ),
    ],
)
def test_a_node_is_named_as_the_api_names_it(node: NodeId, text: str) -> None:
    assert str(node) == text


def test_a_colon_or_percent_in_a_name_or_field_is_escaped_so_ids_are_unambiguous() -> None:
    # Without it (x:y, z) and (x, y:z) were both "dataset:x:y:z": one node of two datasets.
    assert str(NodeId.dataset("x:y", "z")) == "dataset:x:y:z"
    assert str(NodeId.dataset("x", "y:z")) == "dataset:x:y%3Az"
    assert str(NodeId.job("x", "50%")) == "job:x:50%25"
    assert str(NodeId.of_field("s3://b", "t:1", "a:b")) == "field:s3://b:t%3A1:a%3Ab"


@st.composite
def _split_alike(draw: st.DrawFn) -> tuple[tuple[str, str, str], tuple[str, str, str]]:
    """Two (namespace, name, field) cut from one text at two of its colons: joined with
    ":" unescaped, the two would read the same."""
    text = draw(st.text(alphabet=st.sampled_from("ab:%3A/"), min_size=3, max_size=12))
    colons = [i for i, c in enumerate(text) if c == ":"] or [len(text)]
    p, q = draw(st.sampled_from(colons)), draw(st.sampled_from(colons))
    field = draw(st.sampled_from(["", "c", "c:d"]))
    return (text[:p], text[p + 1 :], field), (text[:q], text[q + 1 :], field)


@given(_split_alike(), st.sampled_from(["dataset", "job", "field"]))
def test_two_nodes_have_one_id_only_when_they_are_one_node(
    pair: tuple[tuple[str, str, str], tuple[str, str, str]], kind: str
) -> None:
    def node(namespace: str, name: str, field: str) -> NodeId:
        if kind == "field":
            return NodeId.of_field(namespace, name, field)
        return NodeId.dataset(namespace, name) if kind == "dataset" else NodeId.job(namespace, name)

    a, b = node(*pair[0]), node(*pair[1])
    assert (str(a) == str(b)) == (a == b)


def test_node_ids_are_values() -> None:
    assert NodeId.dataset("a", "b") == NodeId("dataset", "a", "b")
    assert len({NodeId.dataset("a", "b"), NodeId.dataset("a", "b"), NodeId.job("a", "b")}) == 2


def test_both_directions_walk_upstream_then_downstream() -> None:
    assert ways("both") == ("upstream", "downstream")
    assert ways("upstream") == ("upstream",)
    assert ways("downstream") == ("downstream",)
