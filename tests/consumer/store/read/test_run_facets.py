"""A run's facets and its datasets' facets, merged from the run's stored events."""

from __future__ import annotations

import uuid

from feast_lineage.consumer.store.read.run_facets import RunFacets, run_facets, superseded_events
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, facet, run_event
from tests.store_helpers import Store


def _with_io(name: str, key: str, facets: dict[str, object] | None) -> dict[str, object]:
    ds = dataset("s3://b", name)
    if facets is not None:
        ds[key] = facets
    return ds


def test_facets_merge_by_event_time_not_arrival(store: Store) -> None:
    run_id = str(uuid.uuid4())
    late = run_event(
        "COMPLETE",
        run_id=run_id,
        time=at(9),
        run_facets={"stats": facet(n=2), "errorMessage": facet(message="late")},
        outputs=[_with_io("out", "outputFacets", {"outputStatistics": facet(rowCount=9)})],
    )
    early = run_event(
        "START",
        run_id=run_id,
        time=at(1),
        run_facets={"stats": facet(n=1), "nominalTime": facet(nominalStartTime=at(0))},
        inputs=[_with_io("in", "inputFacets", {"dataQualityMetrics": facet(rowCount=3)})],
        outputs=[_with_io("out", "outputFacets", {"outputStatistics": facet(rowCount=1)})],
    )
    store.ingest(late)
    store.ingest(early)  # arrives last, but is the earlier event
    with store.engine.connect() as conn:
        merged = run_facets(conn, [run_id])[run_id]
    assert merged.facets == {
        "stats": facet(n=2),
        "errorMessage": facet(message="late"),
        "nominalTime": facet(nominalStartTime=at(0)),
    }
    assert merged.io == {
        (dataset_id("s3://b", "in"), "input"): {"dataQualityMetrics": facet(rowCount=3)},
        (dataset_id("s3://b", "out"), "output"): {"outputStatistics": facet(rowCount=9)},
    }


def test_many_runs_at_once_and_a_run_without_events(store: Store) -> None:
    runs = [str(uuid.uuid4()) for _ in range(3)]
    for i, run_id in enumerate(runs[:2]):
        store.ingest(run_event("START", run_id=run_id, run_facets={"own": facet(i=i)}))
    with store.engine.connect() as conn:
        merged = run_facets(conn, [*runs, runs[0]])
    assert set(merged) == set(runs)
    assert merged[runs[0]].facets == {"own": facet(i=0)}
    assert merged[runs[1]].facets == {"own": facet(i=1)}
    assert merged[runs[2]] == RunFacets()


def test_a_dataset_event_or_a_run_without_facets_adds_nothing() -> None:
    merged = RunFacets()
    merged.add({"dataset": {"namespace": "n", "name": "d"}})
    merged.add(run_event("START", inputs=[dataset("s3://b", "x")]))
    assert merged.facets == {}
    assert merged.io == {(dataset_id("s3://b", "x"), "input"): None}


def test_superseded_events_are_the_old_ones_no_value_comes_from(store: Store) -> None:
    run_id = str(uuid.uuid4())
    ins = [_with_io("in", "inputFacets", {"q": facet(rows=1)})]
    store.ingest(
        run_event("START", run_id=run_id, time=at(1), run_facets={"a": facet(v=1)}, inputs=ins),
        run_event("RUNNING", run_id=run_id, time=at(2), run_facets={"b": facet(v=1)}),
        run_event("RUNNING", run_id=run_id, time=at(3), run_facets={"b": facet(v=2)}),
        run_event("RUNNING", run_id=run_id, time=at(4)),  # holds nothing
        run_event("RUNNING", run_id=run_id, time=at(9), run_facets={"b": facet(v=3)}),
    )
    second = {parse_us(at(s)): s for s in (1, 2, 3, 4, 9)}
    ids = {r["id"]: second[r["event_time_us"]] for r in store.rows(t.events)}
    with store.engine.connect() as conn:
        gone = superseded_events(conn, [run_id], parse_us(at(5)))
        everything = superseded_events(conn, [run_id], parse_us(at(100)))
    # START holds "a" and the input's facets; "b" comes from the event at 9.
    assert sorted(ids[i] for i in gone) == [2, 3, 4]
    assert sorted(ids[i] for i in everything) == [2, 3, 4]
    before = one_run_facets_of(store, run_id)
    with store.engine.begin() as conn:
        conn.execute(t.events.delete().where(t.events.c.id.in_(gone)))
    assert one_run_facets_of(store, run_id) == before


def one_run_facets_of(store: Store, run_id: str) -> RunFacets:
    with store.engine.connect() as conn:
        return run_facets(conn, [run_id])[run_id]
