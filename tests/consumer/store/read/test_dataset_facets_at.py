"""A dataset's facets as of T are those of a store of the events until T: none left out, none later.

The property test of ``as_of`` (test_as_of_property.py) holds them on
generated histories; here, the cases it rarely draws: statements by a
writer, a reader and DatasetEvents interleaved, two events at one
instant, a facet last stated many events before T, a facet first stated
after T, the ``dataSource`` URI kept from an earlier facet when a later
one names none, and the retention horizon below which events may be gone.
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
from feast_lineage.consumer.store.read import dataset_facets_at as module
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.dataset_facets_at import dataset_facets_at, event_key
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.factories import at, dataset, dataset_event, facet, job_event, run_event
from tests.store_helpers import Store, history_settings, ingest_shuffled

NS, NAME = "s3://b", "features/driver"
DID = dataset_id(NS, NAME)
WRITER, READER = ("spark://p", "write"), ("spark://p", "read")


def _doc(text: str) -> dict[str, Any]:
    return {"documentation": facet(description=text)}


def _source(uri: str | None) -> dict[str, Any]:
    return {"dataSource": facet(name="s3", **({"uri": uri} if uri else {}))}


def _at(store: Store, seconds: float) -> tuple[dict[str, Any], str | None]:
    """The dataset's facets and URI as of ``seconds``."""
    with store.engine.connect() as conn:
        found = dataset_facets_at(conn, [DID], Instant(parse_us(at(seconds))), uris=True)
    facets = {name: orjson.loads(text) for name, text in found.facets.get(DID, {}).items()}
    return facets, found.uris.get(DID)


def _now(store: Store) -> tuple[dict[str, Any], str | None]:
    """The dataset's facets and URI now (today's rules), as the store holds them."""
    f, b = t.dataset_facets, t.facet_blobs
    with store.engine.connect() as conn:
        rows = conn.execute(
            f.join(b, b.c.id == f.c.blob_id)
            .select()
            .with_only_columns(f.c.name, b.c.payload)
            .where(f.c.owner_id == DID)
        ).all()
        uri = conn.scalar(
            t.datasets.select()
            .with_only_columns(t.datasets.c.datasource_uri)
            .where(t.datasets.c.id == DID)
        )
    return {str(name): orjson.loads(payload) for name, payload in rows}, uri


def _history() -> list[dict[str, Any]]:
    """The writer states "a" and a URI at 1; the reader "b" at 2 (and a URI with a password);
    two writes at 5 ("c" and "d"); 20 events of the writer that list the dataset with no
    documentation from 6 to 25, and a dataSource naming no URI at 7; a DatasetEvent "e" with
    ownership (its first statement) at 30."""
    out = dataset(NS, NAME, **_doc("a"), **_source("s3://b/one"))
    read = dataset(NS, NAME, **_doc("b"), **_source("s3://user:secret@b/two"))
    events = [
        run_event("COMPLETE", job=WRITER, time=at(1), outputs=[out]),
        run_event("START", job=READER, time=at(2), inputs=[read]),
        run_event("COMPLETE", job=WRITER, time=at(5), outputs=[dataset(NS, NAME, **_doc("c"))]),
        run_event("COMPLETE", job=WRITER, time=at(5), outputs=[dataset(NS, NAME, **_doc("d"))]),
    ]
    events += [
        run_event(
            "RUNNING",
            job=WRITER,
            time=at(6 + i),
            outputs=[dataset(NS, NAME, **(_source(None) if i == 1 else {}))],
        )
        for i in range(20)
    ]
    owner = {"ownership": facet(owners=[{"name": "team"}])}
    events.append(dataset_event(NS, NAME, time=at(30), **_doc("e"), **owner))
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
    for seconds in (0, 1, 2, 4, 5, 6, 7, 25, 29, 30, 1000):
        until.reset()
        until.ingest_each(e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds)))
        assert _at(full, seconds) == _now(until), seconds
    facets, uri = _at(full, 4)
    assert facets["documentation"]["description"] == "b"  # the reader's, restated since
    assert uri == "s3://b/two"  # without its password, as ingest keeps it
    assert _at(full, 5)[0]["documentation"]["description"] in ("c", "d")  # by event key
    facets, uri = _at(full, 7)
    assert "uri" not in facets["dataSource"]
    assert uri == "s3://b/two"  # the URI named last
    assert "ownership" not in _at(full, 29)[0]  # first stated at 30


def test_below_the_retention_horizon_a_facet_is_left_out_never_an_older_value(
    two_stores: tuple[Store, Store],
) -> None:
    """Documentation "a" at 1 (a run kept by retention: its job's latest listing), "b" at 5
    (a DatasetEvent, pruned), a listing without it at 12, "c" at 20; cutoff 10: as of 15 the
    value, "b", is gone, and "a" (still stored) is not it."""
    pruned, whole = two_stores
    kept_run = str(uuid.uuid4())
    events = [
        run_event(
            "COMPLETE",
            run_id=kept_run,
            job=WRITER,
            time=at(1),
            outputs=[dataset(NS, NAME, **_doc("a"))],
        ),
        dataset_event(NS, NAME, time=at(5), **_doc("b")),
        run_event("RUNNING", job=WRITER, time=at(12), outputs=[dataset(NS, NAME)]),
        run_event("START", job=WRITER, time=at(20), outputs=[dataset(NS, NAME, **_doc("c"))]),
    ]
    for s in two_stores:
        s.ingest_each(events)
    prune(pruned.engine, parse_us(at(10)))
    assert kept_run in {row["run_id"] for row in pruned.rows(t.runs)}
    assert any(p["eventTime"] == at(1) for p in pruned.payloads())  # "a" is still stored
    assert _at(whole, 15)[0]["documentation"]["description"] == "b"
    assert "documentation" not in _at(pruned, 15)[0]
    assert _at(pruned, 20)[0]["documentation"]["description"] == "c"


def test_an_event_key_is_named_by_its_rank(store: Store) -> None:
    """The listings' ranks name their events (ingest's key and rank of one event)."""
    store.ingest_each([run_event("START", job=WRITER, time=at(3), outputs=[dataset(NS, NAME)])])
    listing = store.rows(t.io_listings)[0]
    keys = {row["event_key"] for row in store.rows(t.events)}
    assert event_key(listing["rank"]) in keys


_tied_event = st.fixed_dictionaries(
    {
        "time": st.integers(0, 3),  # few instants: many events share one
        "doc": st.sampled_from([None, "a", "b", "c"]),
        "uri": st.sampled_from([None, None, "s3://b/x", "s3://b/y", ""]),
        "as": st.sampled_from(["output", "input", "dataset event", "job event"]),
        "job": st.sampled_from([WRITER, READER]),
    }
)


def _tied(spec: dict[str, Any], i: int) -> dict[str, Any]:
    facets = _doc(spec["doc"]) if spec["doc"] else {}
    if spec["uri"] is not None:
        facets |= _source(spec["uri"])
    facets["tag"] = facet(n=i)  # distinct payloads, distinct keys
    if spec["as"] == "dataset event":
        return dataset_event(NS, NAME, time=at(spec["time"]), **facets)
    listed = [dataset(NS, NAME, **facets)]
    if spec["as"] == "job event":
        return job_event(*spec["job"], time=at(spec["time"]), outputs=listed)
    io = {"inputs": listed} if spec["as"] == "input" else {"outputs": listed}
    return run_event("RUNNING", job=spec["job"], time=at(spec["time"]), **io)


@pytest.mark.slow
def test_walking_back_across_ties_at_every_window_and_step_boundary(
    two_stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows of one second, then two, four: their bounds fall between the instants; two
    events fetched at a time: a fetch often splits events of one instant."""
    monkeypatch.setattr(module, "_HOUR_US", 1_000_000)
    monkeypatch.setattr(module, "_GROWTH", 2)
    monkeypatch.setattr(module, "_STEP", 2)
    full, until = two_stores
    examples = 50 if full.dialect == "sqlite" else 10

    @history_settings(examples)
    @given(st.lists(_tied_event, min_size=4, max_size=16), st.data())
    def check(specs: list[dict[str, Any]], data: st.DataObject) -> None:
        events = [_tied(spec, i) for i, spec in enumerate(specs)]
        full.reset()
        ingest_shuffled(full, events, data)
        for seconds in range(5):
            until.reset()
            until.ingest_each(
                e for e in events if parse_us(e["eventTime"]) <= parse_us(at(seconds))
            )
            then, now = _at(full, seconds), _now(until)
            # "tag" is stated by every event: the latest then, exactly
            assert then == now, seconds

    check()


def test_a_dataset_listed_twice_in_one_event_takes_ingests_rules(
    two_stores: tuple[Store, Store],
) -> None:
    """Read with URI X and written with URI Y (and another documentation) in one event at
    10, stated again at 20: as of 15, the facets are the later occurrence's (the output's)
    and the URI the first one that named one (the input's), as ingest merged them."""
    full, until = two_stores
    both = run_event(
        "COMPLETE",
        job=WRITER,
        time=at(10),
        inputs=[dataset(NS, NAME, **_doc("in"), **_source("s3://b/x"))],
        outputs=[dataset(NS, NAME, **_doc("out"), **_source("s3://b/y"))],
    )
    unnamed = run_event(
        "COMPLETE",
        job=READER,
        time=at(12),
        inputs=[dataset(NS, NAME, **_source("s3://b/z"))],
        outputs=[dataset(NS, NAME, **_source(None))],
    )
    later = run_event(
        "START",
        job=WRITER,
        time=at(20),
        outputs=[dataset(NS, NAME, **_doc("new"), **_source("s3://b/new"))],
    )
    full.ingest_each([later, unnamed, both])
    until.ingest_each([both])
    assert _at(full, 11) == _now(until)
    assert _at(full, 11)[1] == "s3://b/x"
    until.ingest_each([unnamed])
    assert _at(full, 15) == _now(until)
    assert _at(full, 15)[1] == "s3://b/z"  # the output's dataSource names none


def test_past_the_budget_a_facet_is_left_out_never_an_older_value(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documentation "z" at 0.5 and "a" at 1 (two payloads by then: the rows cannot tell
    which was stated last), 30 listings without it, "b" at 60: with a budget of 20
    listings, as of 50 the walk stops before reaching "a" and leaves it out."""
    monkeypatch.setattr(module, "_BUDGET", 20)
    events = [
        run_event("COMPLETE", job=WRITER, time=at(s), outputs=[dataset(NS, NAME, **_doc(d))])
        for s, d in ((0.5, "z"), (1, "a"))
    ]
    events += [
        run_event("COMPLETE", job=WRITER, time=at(10 + i), outputs=[dataset(NS, NAME)])
        for i in range(30)
    ]
    events.append(
        run_event("START", job=READER, time=at(60), inputs=[dataset(NS, NAME, **_doc("b"))])
    )
    store.ingest_each(events)
    assert "documentation" not in _at(store, 50)[0]
    monkeypatch.setattr(module, "_BUDGET", 4096)
    assert _at(store, 50)[0]["documentation"]["description"] == "a"


def _page(store: Store, seconds: float) -> tuple[dict[str, Any], str | None]:
    """The dataset's facets and URI as of ``seconds`` as a page reads them: no event read."""
    with store.engine.connect() as conn:
        instant = Instant(parse_us(at(seconds)))
        found = dataset_facets_at(conn, [DID], instant, uris=True, walk=False)
    facets = {name: orjson.loads(text) for name, text in found.facets.get(DID, {}).items()}
    return facets, found.uris.get(DID)


def test_a_page_knows_a_facet_restated_since_with_the_same_payload(store: Store) -> None:
    """Every run restates its output's facets: documentation "a" and a URI from 1 to 10,
    documentation "b" from 20 (the URI unchanged). Read without events (a page), as of 5
    the URI and its dataSource facet are those stated since 1, never left out because
    they were stated again; the documentation changed since 5, but "a" is the only
    payload it had been stated with by then, so it was "a" then."""
    events = [
        run_event(
            "COMPLETE",
            job=WRITER,
            time=at(second),
            outputs=[dataset(NS, NAME, **_doc("a" if second < 20 else "b"), **_source("s3://b/t"))],
        )
        for second in (*range(1, 11), 20)
    ]
    store.ingest_each(events[::-1])  # the latest first: the order must not matter
    facets, uri = _page(store, 5)
    assert uri == "s3://b/t"
    assert facets == {"dataSource": _source("s3://b/t")["dataSource"], **_doc("a")}
    assert _at(store, 5)[0] == facets
    facets, uri = _page(store, 0)
    assert (facets, uri) == ({}, None)  # nothing was stated yet
    assert _page(store, 20)[0]["documentation"]["description"] == "b"


def test_a_payload_stated_again_after_another_is_left_out_of_a_page_before_its_latest(
    store: Store,
) -> None:
    """Documentation "a" at 1, "b" at 2, "a" at 3 and 4: as of 3.5 it was "a" (stated at 3),
    but the store knows only "a"'s first statement (1, before "b"): a page leaves it out,
    never shows "b"; a node's details read it from the events; as of 4 it is the latest."""
    docs = {1: "a", 2: "b", 3: "a", 4: "a"}
    store.ingest_each(
        run_event("COMPLETE", job=WRITER, time=at(s), outputs=[dataset(NS, NAME, **_doc(d))])
        for s, d in docs.items()
    )
    assert "documentation" not in _page(store, 3.5)[0]
    assert _at(store, 3.5)[0]["documentation"]["description"] == "a"
    assert _page(store, 4)[0]["documentation"]["description"] == "a"
    assert _page(store, 2.5)[0] == {}


_statement = st.tuples(st.sampled_from(["a", "b"]), st.booleans())  # documentation, a read


@pytest.mark.slow
def test_what_a_page_knows_without_events_is_exact_and_the_same_in_any_order(
    two_stores: tuple[Store, Store],
) -> None:
    """Statements of one facet, a second apart, delivered in any order, batching and
    duplication. As of each instant, a page's facet is the value then (a store of the
    events until then has it now) or left out; and it is there exactly when the facet's
    latest statement is by then, when the current value was first stated after every
    statement of another value and by then, or when one value only had been stated by
    then: what the store's rows claim, whatever the order they arrived in."""
    shuffled, until = two_stores
    examples = 40 if shuffled.dialect == "sqlite" else 8

    @history_settings(examples)
    @given(st.lists(_statement, min_size=1, max_size=8), st.data())
    def check(statements: list[tuple[str, bool]], data: st.DataObject) -> None:
        events = []
        for second, (doc, read) in enumerate(statements, start=1):
            listed = {"inputs" if read else "outputs": [dataset(NS, NAME, **_doc(doc))]}
            job = READER if read else WRITER
            events.append(run_event("COMPLETE", job=job, time=at(second), **listed))
        shuffled.reset()
        ingest_shuffled(shuffled, events, data)
        current = statements[-1][0]
        first = min(s for s, (doc, _) in enumerate(statements, 1) if doc == current)
        others = [s for s, (doc, _) in enumerate(statements, 1) if doc != current]
        known_from = first if not others or first > max(others) else len(statements)
        for seconds in range(len(statements) + 1):
            until.reset()
            until.ingest_each(events[:seconds])
            then = _page(shuffled, seconds)[0]
            assert then.get("documentation") in (None, _now(until)[0].get("documentation"))
            alone = len({doc for doc, _ in statements[:seconds]}) == 1
            assert ("documentation" in then) == (seconds >= known_from or alone), seconds

    check()


def test_the_rows_answer_without_events_when_one_payload_or_none_was_stated_by_then(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Documentation "a" from 1 to 4, "b" at 10, "c" at 20. As of 0.5 (nothing yet) and
    as of 5 (only "a" by then) a node's details need no event; as of 15 ("a" and "b" by
    then, the rows cannot tell which was last) they read the events, and a page leaves
    it out."""
    docs = {1: "a", 2: "a", 3: "a", 4: "a", 10: "b", 20: "c"}
    store.ingest_each(
        run_event("COMPLETE", job=WRITER, time=at(s), outputs=[dataset(NS, NAME, **_doc(d))])
        for s, d in docs.items()
    )
    walked: list[int] = []
    walk = module._walk_back
    monkeypatch.setattr(module, "_walk_back", lambda c, owner, *a: walked.append(owner))
    assert _at(store, 0.5) == ({}, None)
    assert _at(store, 5)[0]["documentation"]["description"] == "a"
    assert _page(store, 5)[0]["documentation"]["description"] == "a"
    assert walked == []
    assert "documentation" not in _page(store, 15)[0]
    assert "documentation" not in _at(store, 15)[0]
    assert walked == [DID]
    monkeypatch.setattr(module, "_walk_back", walk)
    assert _at(store, 15)[0]["documentation"]["description"] == "b"
