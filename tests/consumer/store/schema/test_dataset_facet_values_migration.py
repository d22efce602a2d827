"""Migration 0026 derives each dataset facet's payloads and bound from the stored events,
as ingest keeps them, and claims nothing the kept events cannot vouch for."""

from __future__ import annotations

import importlib
import uuid
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import delete, select

from feast_lineage.consumer.intake.pipeline import IngestPipeline
from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.engine.database import create_store_engine
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.dataset_facets_at import dataset_facets_at
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import Store, migrate

NS = "s3://b"
WRITER, READER = ("spark://p", "write"), ("spark://p", "read")
below = importlib.import_module(
    "feast_lineage.consumer.store.schema.migrations.versions.0026_dataset_facet_values"
).below
_rank = st.text("0123456789abcdef", min_size=4, max_size=4)


@given(_rank, _rank)
def test_the_bound_below_a_rank_is_at_or_above_every_lower_rank(a: str, b: str) -> None:
    low, high = sorted((a, b))
    if low < high:
        assert low <= below(high) < high
    assert below("0000") == "0000"  # none below: its own bound, nothing claimed
    assert below("12-4") == "12-4"  # not a rank ingest writes: nothing claimed


def _rows(store: Store) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    f, v = t.dataset_facets.c, t.dataset_facet_values.c
    with store.engine.connect() as conn:
        facets = set(conn.execute(select(f.owner_id, f.name, f.rank, f.blob_id, f.other_rank)))
        values = set(conn.execute(select(v.owner_id, v.name, v.blob_id, v.first_rank)))
    return facets, values


def _doc(text: str, **more: Any) -> dict[str, Any]:
    return {"documentation": facet(description=text), **more}


def _owner(name: str) -> dict[str, Any]:
    return {"ownership": facet(owners=[{"name": name}])}


def _history() -> list[dict[str, Any]]:
    """Writes and reads of two datasets, out of order: a payload restated, changed, changed
    back (A, B, A), a facet first stated late, a DatasetEvent and a JobEvent."""
    source = {"dataSource": facet(name="s3", uri="s3://b/t")}
    events = []
    for second, doc in ((5, "a"), (1, "a"), (9, "b"), (3, "a"), (12, "a"), (7, "b")):
        out = dataset(NS, "t", **_doc(doc, **source))
        events.append(run_event("COMPLETE", job=WRITER, time=at(second), outputs=[out]))
    events.append(run_event("START", job=READER, time=at(4), inputs=[dataset(NS, "t", **source)]))
    owner = {"ownership": facet(owners=[{"name": "team"}])}
    events.append(dataset_event(NS, "u", time=at(8), **_doc("u1", **owner)))
    events.append(job_event(*WRITER, time=at(2), outputs=[dataset(NS, "u", **_doc("u0"))]))
    events.append(dataset_event(NS, "u", time=at(11), **_doc("u1")))
    return events


def test_0026_derives_what_ingest_keeps_from_0025_with_data(store_url: str) -> None:
    """Ingested (the later half with a payload dictionary, as a store past its training
    has), then taken back to 0025 and up again, chunk by chunk: the same rows."""
    store = Store(store_url)
    engine = create_store_engine(store_url)
    try:
        # Enough events to train a dictionary on (200), then the history compressed with it.
        store.pipeline = IngestPipeline(store.engine, train_after=200)
        filler = [dataset(NS, "w", **_doc("w"))]
        store.ingest(
            *(run_event("START", job=READER, time=at(100 + i), inputs=filler) for i in range(210))
        )
        store.ingest_each(_history())
        with engine.connect() as conn:
            assert conn.execute(select(t.payload_dicts.c.id)).first() is not None
        ingested = _rows(store)
        assert any(other for *_, other in ingested[0])  # a bound above ""
        migrate(engine, "0025", down=True)
        migrate(engine, "head", chunk=2)
        assert _rows(store) == ingested
    finally:
        engine.dispose()
        store.close()


def test_0026_claims_nothing_below_the_horizon_or_of_a_payload_no_kept_event_states(
    store_url: str,
) -> None:
    """Documentation "a" from 1 to 20, pruned before 10: the bound is at least the cutoff's
    first rank. Dataset "v"'s only event is deleted (as a namespace reset deletes its jobs'
    events): its facet counts from its latest statement, the bound just below it."""
    store = Store(store_url)
    engine = create_store_engine(store_url)
    gone = str(uuid.uuid4())
    try:
        store.ingest_each(
            run_event("COMPLETE", job=WRITER, time=at(s), outputs=[dataset(NS, "t", **_doc("a"))])
            for s in range(1, 21)
        )
        store.ingest_each(
            [
                run_event(
                    "COMPLETE",
                    run_id=gone,
                    job=READER,
                    time=at(30),
                    inputs=[dataset(NS, "v", **_doc("v"))],
                )
            ]
        )
        prune(store.engine, parse_us(at(10)))
        with engine.begin() as conn:
            conn.execute(delete(t.events).where(t.events.c.run_id == gone))
        migrate(engine, "0025", down=True)
        migrate(engine, "head", chunk=3)
        f = t.dataset_facets.c
        with engine.connect() as conn:
            rows = {str(r.other_rank): r for r in conn.execute(select(f.rank, f.other_rank))}
        floor = f"{parse_us(at(10)) + 2_208_988_800_000_000:020d}"
        bounds = sorted(rows)
        assert bounds[0] >= floor  # "t": nothing claimed below the horizon
        latest_v = max(str(r.rank) for r in rows.values())
        assert below(latest_v) in rows  # "v": from its latest statement only
    finally:
        engine.dispose()
        store.close()


def test_a_store_pruned_before_0026_claims_no_sole_payload_first_stated_before_the_horizon(
    store_url: str,
) -> None:
    """Documentation "a" at 1 (a run retention keeps), "b" at 5 (a DatasetEvent, pruned
    before the upgrade), "c" at 20; cutoff 10. Migration 0026 derives "a" and "c" only:
    as of 15 "a" is the only payload first stated by then in the rows, but "b" was the
    value. Migration 0028 records the horizon, and "a" is not claimed: left out, in a
    page and in a node's details (the events before the horizon are gone). Ownership
    "x", first stated at 20 (above the horizon) and "y" since, is claimed as of 25 from
    the rows alone."""
    store = Store(store_url)
    engine = create_store_engine(store_url)
    kept_run = str(uuid.uuid4())
    c = dataset(NS, "t", **_doc("c", **_owner("x")))
    d = dataset(NS, "t", **_doc("d", **_owner("y")))
    try:
        store.ingest_each(
            [
                run_event(
                    "COMPLETE",
                    run_id=kept_run,
                    job=WRITER,
                    time=at(1),
                    outputs=[dataset(NS, "t", **_doc("a"))],
                ),
                dataset_event(NS, "t", time=at(5), **_doc("b")),
                run_event("START", job=WRITER, time=at(20), outputs=[c]),
                run_event("START", job=READER, time=at(30), inputs=[d]),
            ]
        )
        prune(store.engine, parse_us(at(10)))
        migrate(engine, "0025", down=True)
        migrate(engine, "head")
        owner = dataset_id(NS, "t")
        with engine.connect() as conn:
            for walk in (False, True):
                then = dataset_facets_at(conn, [owner], Instant(parse_us(at(15))), walk=walk)
                assert "documentation" not in then.facets.get(owner, {}), walk
            later = dataset_facets_at(conn, [owner], Instant(parse_us(at(25))), walk=False)
        assert orjson.loads(later.facets[owner]["ownership"]) == _owner("x")["ownership"]
        assert "documentation" not in later.facets[owner]  # "a" and "c" by then: events tell
    finally:
        engine.dispose()
        store.close()
