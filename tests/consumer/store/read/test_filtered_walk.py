"""Walks and edge reads over the edges a predicate keeps (the shared part of as_of and windows)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import ColumnElement, FromClause, true

from feast_lineage.consumer.store.read import filtered_walk
from feast_lineage.consumer.store.read.graph import FOLLOWED_EDGES
from feast_lineage.identity import dataset_id, job_id, namespace_id
from tests.factories import at, dataset, run_event
from tests.store_helpers import Store

EXTRACT, TRAIN = ("spark://prod", "extract"), ("spark://ml", "train")
RAW, CLEAN, MODEL = dataset("s3://b", "raw"), dataset("s3://b", "clean"), dataset("s3://b", "model")


def every_edge(edges: FromClause) -> ColumnElement[bool]:
    return true()


def no_edge(edges: FromClause) -> ColumnElement[bool]:
    # Not the constant false(): SQLAlchemy would fold the whole join condition away.
    return edges.c.edge_type == "no such type"


def inputs_only(edges: FromClause) -> ColumnElement[bool]:
    return edges.c.edge_type == "input"


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    s.ingest(
        run_event("COMPLETE", job=EXTRACT, time=at(1), inputs=[RAW], outputs=[CLEAN]),
        run_event("COMPLETE", job=TRAIN, time=at(2), inputs=[CLEAN], outputs=[MODEL]),
    )
    yield s
    s.close()


def walk(
    store: Store, keep: filtered_walk.EdgeFilter, ns: set[int] | None = None
) -> dict[int, int]:
    with store.engine.connect() as conn:
        how: filtered_walk.How = (f"walk_{keep.__name__}", keep, FOLLOWED_EDGES, None, None)
        return filtered_walk.walk(conn, dataset_id("s3://b", "model"), "upstream", 10, ns, how, {})


def test_the_predicate_decides_which_edges_a_walk_follows(store: Store) -> None:
    model, clean, raw = (dataset_id("s3://b", n) for n in ("model", "clean", "raw"))
    assert walk(store, every_edge) == {
        model: 0,
        job_id(*TRAIN): 1,
        clean: 2,
        job_id(*EXTRACT): 3,
        raw: 4,
    }
    assert walk(store, no_edge) == {model: 0}
    # Upstream from the model, the first step is an output edge: nothing is kept.
    assert walk(store, inputs_only) == {model: 0}


def test_a_walk_stops_at_namespaces_out_of_scope(store: Store) -> None:
    visible = {namespace_id("s3://b"), namespace_id("spark://ml")}
    reached = walk(store, every_edge, visible)
    assert job_id(*TRAIN) in reached
    assert job_id(*EXTRACT) not in reached  # spark://prod is hidden: the walk does not cross it
    assert walk(store, every_edge, set()) == {dataset_id("s3://b", "model"): 0}


def test_edges_among_keeps_both_ends_inside_and_the_predicates_edges(store: Store) -> None:
    ids = {job_id(*TRAIN), dataset_id("s3://b", "clean"), dataset_id("s3://b", "model")}
    with store.engine.connect() as conn:
        kept = filtered_walk.edges_among(conn, ids, every_edge, {})
        inputs = filtered_walk.edges_among(conn, ids, inputs_only, {})
        none = filtered_walk.edges_among(conn, ids, no_edge, {})
    assert {(e.src_id, e.dst_id, e.edge_type) for e in kept} == {
        (dataset_id("s3://b", "clean"), job_id(*TRAIN), "input"),
        (job_id(*TRAIN), dataset_id("s3://b", "model"), "output"),
    }
    assert [e.edge_type for e in inputs] == ["input"]
    assert none == []
