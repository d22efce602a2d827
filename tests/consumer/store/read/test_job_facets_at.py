"""A job's facets as of T are those of a store of the events until T: none left out, none later.

The property test of ``as_of`` (test_as_of_property.py) holds them on
generated histories; here, the cases it rarely draws: two events of one
job at one instant, a facet last stated many events before T, a facet
first stated after T, and the retention horizon below which events may be
gone (a value kept there could be one that pruned events replaced).
"""

from __future__ import annotations

import itertools
import uuid
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.read import job_facets_at as job_facets_module
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.job_facets_at import job_facets_at
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import job_id
from tests.factories import at, dataset, facet, job_event, run_event
from tests.store_helpers import Store, history_settings, ingest_shuffled

JOB = ("spark://p", "etl")
JID = job_id(*JOB)


def _sql(query: str) -> dict[str, Any]:
    return {"sql": facet(query=query)}


def _at(store: Store, seconds: float) -> dict[str, Any]:
    with store.engine.connect() as conn:
        found = job_facets_at(conn, [JID], Instant(parse_us(at(seconds))))
    return {name: orjson.loads(text) for name, text in found.get(JID, {}).items()}


def _now(store: Store) -> dict[str, Any]:
    """The job's facets now (today's rules), as the store holds them."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            t.job_facets.join(t.facet_blobs, t.facet_blobs.c.id == t.job_facets.c.blob_id)
            .select()
            .with_only_columns(t.job_facets.c.name, t.facet_blobs.c.payload)
            .where(t.job_facets.c.owner_id == JID)
        ).all()
    return {str(name): orjson.loads(payload) for name, payload in rows}


def _history() -> list[dict[str, Any]]:
    """sql "a" at 1; jobType from 2; two events at 5 (sql "b" and "c"); 20 events without
    sql from 6 to 25; sql "d" and an ownership facet (its first statement) at 30."""
    events = [
        run_event("START", job=JOB, time=at(1), job_facets=_sql("a")),
        run_event("START", job=JOB, time=at(2), job_facets={"jobType": facet(jobType="JOB")}),
        run_event("START", job=JOB, time=at(5), job_facets=_sql("b")),
        run_event("START", job=JOB, time=at(5), job_facets=_sql("c")),
    ]
    events += [run_event("RUNNING", job=JOB, time=at(6 + i)) for i in range(20)]
    owner = {"ownership": facet(owners=[{"name": "team"}])}
    events.append(run_event("COMPLETE", job=JOB, time=at(30), job_facets=_sql("d") | owner))
    return events


@pytest.mark.parametrize("order", ["in order", "reversed", "interleaved"])
def test_each_instant_answers_the_facets_of_a_store_of_the_events_until_then(
    two_stores: tuple[Store, Store], order: str
) -> None:
    full, until = two_stores
    events = _history()
    arrival = {
        "in order": events,
        "reversed": events[::-1],
        "interleaved": [
            e for pair in itertools.zip_longest(events[::2], events[1::2]) for e in pair if e
        ],
    }[order]
    full.ingest_each(arrival)
    for seconds in (0, 1, 2, 4, 5, 6, 25, 29, 30, 1000):
        until.reset()
        until.ingest_each(e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds)))
        assert _at(full, seconds) == _now(until), seconds
    # The two statements at 5 rank by their event key, as ingest ranks them.
    assert _at(full, 5)["sql"]["query"] in ("b", "c")
    assert "ownership" not in _at(full, 29)  # first stated at 30


def test_below_the_retention_horizon_a_facet_is_left_out_never_an_older_value(
    two_stores: tuple[Store, Store],
) -> None:
    """sql "a" at 1 (a run kept by retention: its job's latest listing), "b" at 5 (a JobEvent,
    pruned), none at 12, "c" at 20; cutoff 10: as of 15 the value, "b", is gone, and "a"
    (still stored) is not it."""
    pruned, whole = two_stores
    kept_run = str(uuid.uuid4())
    events = [
        run_event(
            "COMPLETE",
            run_id=kept_run,
            job=JOB,
            time=at(1),
            inputs=[dataset("s3://b", "x")],
            run_facets={"nominalTime": facet(nominalStartTime=at(1))},
            job_facets=_sql("a"),
        ),
        job_event(*JOB, time=at(5), **_sql("b")),
        # Above the cutoff, stating no sql: as of 15 the walk starts below it and stops at 10.
        run_event("RUNNING", job=JOB, time=at(12)),
        run_event("START", job=JOB, time=at(20), job_facets=_sql("c")),
    ]
    for s in two_stores:
        s.ingest_each(events)
    prune(pruned.engine, parse_us(at(10)))
    assert kept_run in {row["run_id"] for row in pruned.rows(t.runs)}
    assert any(p["eventTime"] == at(1) for p in pruned.payloads())  # "a" is still stored
    assert _at(whole, 15)["sql"]["query"] == "b"
    assert _at(pruned, 15) == {}
    assert _at(pruned, 20)["sql"]["query"] == "c"


_tied_event = st.fixed_dictionaries(
    {
        "time": st.integers(0, 3),  # few instants: many events share one
        "sql": st.sampled_from([None, "a", "b", "c"]),
        "type": st.sampled_from([None, "X", "Y"]),
        "job_event": st.booleans(),
    }
)


def _tied(spec: dict[str, Any], i: int) -> dict[str, Any]:
    facets = _sql(spec["sql"]) if spec["sql"] else {}
    if spec["type"]:
        facets["jobType"] = facet(jobType=spec["type"], n=i)  # distinct payloads, distinct keys
    if spec["job_event"]:
        return job_event(*JOB, time=at(spec["time"]), **facets)
    return run_event(
        "RUNNING", job=JOB, time=at(spec["time"]), job_facets=facets, run_facets={"n": facet(n=i)}
    )


@pytest.mark.slow
def test_walking_back_across_ties_at_every_step_boundary(
    two_stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two events a step: a step's oldest instant often has more events than fit in it."""
    monkeypatch.setattr(job_facets_module, "_STEP", 2)
    monkeypatch.setattr(job_facets_module, "_MAX_STEP", 2)
    full, until = two_stores
    examples = 50 if full.dialect == "sqlite" else 10

    @history_settings(examples)
    @given(st.lists(_tied_event, min_size=4, max_size=16), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        events = [_tied(spec, i) for i, spec in enumerate(specs)]
        full.reset()
        ingest_shuffled(full, events, data)
        for seconds in range(4):
            until.reset()
            until.ingest_each(
                e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds))
            )
            assert _at(full, seconds) == _now(until), seconds

    check()
