from __future__ import annotations

import pytest

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


def test_node_ids_are_values() -> None:
    assert NodeId.dataset("a", "b") == NodeId("dataset", "a", "b")
    assert len({NodeId.dataset("a", "b"), NodeId.dataset("a", "b"), NodeId.job("a", "b")}) == 2


def test_both_directions_walk_upstream_then_downstream() -> None:
    assert ways("both") == ("upstream", "downstream")
    assert ways("upstream") == ("upstream",)
    assert ways("downstream") == ("downstream",)
