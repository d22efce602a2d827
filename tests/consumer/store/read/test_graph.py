from __future__ import annotations

from collections.abc import Iterator

import pytest

from feast_lineage.consumer.store.read import graph as g
from feast_lineage.identity import dataset_id, job_id, namespace_id
from tests.consumer.lineage import chain, cross_producer
from tests.factories import at, dataset, dataset_event, run_event
from tests.store_helpers import Store


@pytest.fixture
def store(head_store_url: str) -> Iterator[Store]:
    s = Store(head_store_url)
    yield s
    s.close()


def test_walk_depths_are_exact_in_both_directions(store: Store) -> None:
    store.ingest(*chain("n", 5))
    with store.engine.connect() as conn:
        down = g.walk(conn, dataset_id("n", "d0"), "downstream", 3, None)
        up = g.walk(conn, dataset_id("n", "d5"), "upstream", 2, None)
    assert down == {
        dataset_id("n", "d0"): 0,
        job_id("n", "j1"): 1,
        dataset_id("n", "d1"): 2,
        job_id("n", "j2"): 3,
    }
    assert up == {dataset_id("n", "d5"): 0, job_id("n", "j5"): 1, dataset_id("n", "d4"): 2}


def test_walk_treats_aliases_as_one_dataset(store: Store) -> None:
    store.ingest(*cross_producer())
    with store.engine.connect() as conn:
        up = g.walk(conn, dataset_id("ml_team", "driver_source"), "upstream", 1, None)
    assert up == {
        dataset_id("ml_team", "driver_source"): 0,
        dataset_id("s3://bucket", "features/driver"): 0,
        job_id("spark://ml-team", "build"): 1,
    }


def test_walk_never_steps_through_a_hidden_namespace(store: Store) -> None:
    # a:d0 -> hidden:j -> a:d1 : the two visible datasets connect only through the hidden job.
    store.ingest(
        run_event(
            "COMPLETE",
            job=("hidden", "j"),
            inputs=[dataset("a", "d0")],
            outputs=[dataset("a", "d1")],
        )
    )
    visible = frozenset({namespace_id("a")})
    with store.engine.connect() as conn:
        assert g.walk(conn, dataset_id("a", "d0"), "downstream", 5, visible) == {
            dataset_id("a", "d0"): 0
        }
        assert len(g.walk(conn, dataset_id("a", "d0"), "downstream", 5, None)) == 3
        assert g.count_edges(conn, visible) == 0
        assert g.count_edges(conn, None) == 2


def test_walk_and_counts_follow_current_edges_only(store: Store) -> None:
    # etl read "old" in its first run and "new" in its second: upstream of
    # its output is "new" alone, and "old" no longer reaches the output.
    job = ("spark://prod", "etl")
    store.ingest(
        run_event(
            "COMPLETE",
            job=job,
            time=at(1),
            inputs=[dataset("s3://b", "old")],
            outputs=[dataset("s3://b", "out")],
        ),
        run_event(
            "COMPLETE",
            job=job,
            time=at(2),
            inputs=[dataset("s3://b", "new")],
            outputs=[dataset("s3://b", "out")],
        ),
    )
    out, old, new = (dataset_id("s3://b", n) for n in ("out", "old", "new"))
    with store.engine.connect() as conn:
        assert g.walk(conn, out, "upstream", 5, None) == {out: 0, job_id(*job): 1, new: 2}
        assert g.walk(conn, old, "downstream", 5, None) == {old: 0}
        assert g.count_edges(conn, None) == 2
        ids = {out, old, new, job_id(*job)}
        assert {(e.src_id, e.dst_id) for e in g.edges_among(conn, ids)} == {
            (new, job_id(*job)),
            (job_id(*job), out),
        }
    assert len(store.edges()) == 3  # the old input stays stored


def test_walk_does_not_cross_an_alias_the_dataset_no_longer_names(store: Store) -> None:
    def aliases(name: str) -> dict[str, object]:
        return {"identifiers": [{"namespace": "hive://m", "name": name, "type": "TABLE"}]}

    store.ingest(
        run_event("COMPLETE", job=("n", "writer"), outputs=[dataset("hive://m", "old")]),
        run_event("COMPLETE", job=("n", "writer2"), outputs=[dataset("hive://m", "new")]),
        dataset_event("s3://b", "orders", time=at(1), symlinks=aliases("old")),
        dataset_event("s3://b", "orders", time=at(2), symlinks=aliases("new")),
    )
    orders = dataset_id("s3://b", "orders")
    with store.engine.connect() as conn:
        up = g.walk(conn, orders, "upstream", 1, None)
        links = g.symlinks_touching(conn, {orders}, None)
    assert up == {orders: 0, dataset_id("hive://m", "new"): 0, job_id("n", "writer2"): 1}
    assert [row.alias_name for row in links] == ["new"]


def test_a_scoped_caller_gets_null_for_what_a_hidden_job_set_on_a_visible_dataset(
    store: Store,
) -> None:
    """A hidden job wrote ``team.source`` last: its producer and its event time are the
    dataset's, and a caller who may not see the job's namespace is shown neither, on the
    page of nodes and by id; the unscoped caller and one who sees both are shown both."""
    store.ingest(
        {
            **run_event(
                "COMPLETE", job=("team", "j"), time=at(10), outputs=[dataset("team", "source")]
            ),
            "producer": "https://example.com/team",
        },
        {
            **run_event(
                "FAIL",
                job=("secret://hidden", "loader"),
                time=at(200),
                outputs=[dataset("team", "source")],
            ),
            "producer": "https://example.com/secretproducer",
        },
    )
    source = dataset_id("team", "source")
    team = frozenset({namespace_id("team")})
    both = team | {namespace_id("secret://hidden")}

    def seen(ns_ids: frozenset[int] | None) -> list[tuple[str | None, int | None]]:
        with store.engine.connect() as conn:
            total = g.count_nodes(conn, ns_ids)
            paged = g.node_page(conn, ns_ids, total, 0, 10, visible=ns_ids)
            # The team's page only (a filter), for a caller who may see ``ns_ids``.
            listed = g.node_page(conn, team, g.count_nodes(conn, team), 0, 10, visible=ns_ids)
            by_id = g.nodes_by_id(conn, [source], ns_ids, visible=ns_ids)
            # The team's nodes only (a filter), for a caller who may see ``ns_ids``.
            by_id += g.nodes_by_id(conn, [source], team, visible=ns_ids)
        nodes = [r for r in (*paged, *listed) if r.id == source]
        return [(r.producer, r.updated_us) for r in (*nodes, *by_id)]

    assert seen(team) == [(None, None)] * 4
    hidden = ("https://example.com/secretproducer", 1767268800000000 + 200_000_000)
    assert seen(both) == seen(None) == [hidden] * 4
