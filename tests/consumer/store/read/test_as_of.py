"""The graph at an instant: each job's latest listing then, and what its run had listed by then."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from feast_lineage.consumer.services.job_versions_then import job_versions_at
from feast_lineage.consumer.store.read import as_of
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.columns_as_of import schema_ids_at
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, job_id, namespace_id
from tests.factories import at, dataset, dataset_event, facet, run_event, schema_facet
from tests.store_helpers import Store, instant

JOB = ("spark://prod", "etl")


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    s = Store(store_url)
    yield s
    s.close()


def inputs_at(store: Store, seconds: float) -> set[int]:
    with store.engine.connect() as conn:
        found = as_of.walk(conn, job_id(*JOB), "upstream", 1, None, instant(seconds))
    return set(found) - {job_id(*JOB)}


def history() -> list[dict]:
    """Run 1 reads a at 10 and a, b at 30; run 2 reads c alone at 20 (no outputs)."""
    one, two = str(uuid.uuid4()), str(uuid.uuid4())
    return [
        run_event("START", run_id=one, job=JOB, time=at(10), inputs=[dataset("s3://b", "a")]),
        run_event(
            "START", run_id=two, job=JOB, time=at(20), inputs=[dataset("s3://b", "c")], outputs=[]
        ),
        run_event(
            "COMPLETE",
            run_id=one,
            job=JOB,
            time=at(30),
            inputs=[dataset("s3://b", "a"), dataset("s3://b", "b")],
            outputs=[dataset("s3://b", "out")],
        ),
    ]


A, B, C = (dataset_id("s3://b", n) for n in "abc")


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 2, 0, 2, 1)])
def test_inputs_are_the_latest_listing_runs_as_listed_by_then(store: Store, order: tuple) -> None:
    events = history()
    store.ingest_each(events[i] for i in order)
    assert inputs_at(store, 9) == set()
    assert inputs_at(store, 10) == {A}
    assert inputs_at(store, 25) == {C}
    assert inputs_at(store, 30) == {A, B}
    assert inputs_at(store, 10_000) == {A, B}


def test_nodes_exist_from_the_first_event_that_named_them(store: Store) -> None:
    store.ingest_each(reversed(history()))
    with store.engine.connect() as conn:
        early = as_of.count_nodes(conn, None, instant(15))
        late = as_of.count_nodes(conn, None, instant(30))
        page = as_of.node_page(conn, None, instant(15), 0, 10)
        hidden = as_of.count_nodes(conn, frozenset({namespace_id("elsewhere")}), instant(30))
    assert early == 2  # the job and a
    assert [r.name for r in page] == ["a", "etl"]
    assert late == 5  # and c, b, out
    assert hidden == 0


def test_edges_counted_and_among_nodes_at_the_instant(store: Store) -> None:
    store.ingest_each(history())
    ids = {job_id(*JOB), A, B, C, dataset_id("s3://b", "out")}
    with store.engine.connect() as conn:
        at_25 = {(e.src_id, e.dst_id) for e in as_of.edges_among(conn, ids, instant(25))}
        at_30 = as_of.count_edges(conn, None, instant(30))
    assert at_25 == {(C, job_id(*JOB))}
    assert at_30 == 3  # a, b -> etl -> out


def test_dataset_versions_at_the_instant(store: Store) -> None:
    store.ingest_each(history())
    out = dataset_id("s3://b", "out")
    with store.engine.connect() as conn:
        before = as_of.dataset_versions_at(conn, [out], instant(29))
        after = as_of.dataset_versions_at(conn, [out], instant(31))
        jobs = job_versions_at(conn, [job_id(*JOB)], instant(31))
        (written,) = dv.versions(dv.observations(conn, out))
    assert before == {}
    assert written.row.time_us == parse_us(at(30))
    assert after[out] == dv.CurrentVersion(written.row.id, written.schema_id)
    assert set(jobs) == {job_id(*JOB)}


def _versions_history() -> list[dict]:
    """A dataset written with and without a schema, stated anew, read, and its lifecycle changed."""
    out = ("s3://b", "hist")
    events = []
    for i, (schema, writes) in enumerate(
        [(("a",), True), (None, True), (("a", "b"), False), (("a",), True), (("c",), False)]
    ):
        run_id = str(uuid.uuid4())
        facets = {"schema": schema_facet(*schema)} if schema else {}
        ref = dataset(*out, **facets)
        kind = "COMPLETE" if writes else "START"
        events.append(run_event(kind, run_id=run_id, job=JOB, time=at(10 * i + 5), outputs=[ref]))
    events.append(
        dataset_event(*out, time=at(60), lifecycleStateChange=facet(lifecycleStateChange="DROP"))
    )
    reader = str(uuid.uuid4())
    read = dataset(*out, schema=schema_facet("z"))
    events.append(run_event("START", run_id=reader, job=JOB, time=at(70), inputs=[read]))
    return events


def test_the_version_then_by_seek_is_the_walk_of_every_row_until_then(store: Store) -> None:
    """The index seek (latest write) and the full walk agree at every instant, both orders."""
    events = _versions_history()
    store.ingest_each(reversed(events))
    ds = dataset_id("s3://b", "hist")
    with store.engine.connect() as conn:
        for seconds in range(80):
            seek = as_of.dataset_versions_at(conn, [ds, A], instant(seconds))
            walk = dv.current_at(conn, [ds, A], parse_us(at(seconds)))
            assert seek == walk, seconds
        assert as_of.dataset_versions_at(conn, [ds], instant(80))[ds].schema_id is not None


def test_the_schema_then_in_one_row_is_the_walks_version_schema(store: Store) -> None:
    """Column lineage's schema at T (the last row of each table) is the full walk's, any instant."""
    events = _versions_history()
    store.ingest_each(reversed(events))
    ds = dataset_id("s3://b", "hist")
    seen = set()
    with store.engine.connect() as conn:
        for seconds in range(80):
            walk = dv.current_at(conn, [ds, A], parse_us(at(seconds)))
            expected = {d: v.schema_id for d, v in walk.items() if v.schema_id is not None}
            assert schema_ids_at(conn, [ds, A], instant(seconds)) == expected, seconds
            seen.add(expected.get(ds))
    assert len(seen - {None}) >= 2  # the schema changed over the history


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 0, 2)])
def test_a_parent_edge_dates_from_its_earliest_statement_whatever_the_arrival(
    store: Store, order: tuple[int, ...]
) -> None:
    """Three runs of a task name the DAG as parent at 50, 10 and 30: the edge is there from 10."""
    dag = ("airflow://prod", "dag")
    events = [
        run_event(job=JOB, time=at(seconds), parent=(str(uuid.uuid4()), dag))
        for seconds in (50, 10, 30)
    ]
    store.ingest_each(events[i] for i in order)
    edge = (job_id(*dag), job_id(*JOB))
    ids = {edge[0], edge[1]}
    with store.engine.connect() as conn:
        seen = {
            seconds: {(e.src_id, e.dst_id) for e in as_of.edges_among(conn, ids, instant(seconds))}
            for seconds in (9, 10, 29, 1000)
        }
    assert seen == {9: set(), 10: {edge}, 29: {edge}, 1000: {edge}}
    (row,) = store.rows(t.lineage_edges)
    assert row["created_us"] == parse_us(at(10))
