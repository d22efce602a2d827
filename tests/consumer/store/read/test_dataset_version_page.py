"""A page of versions read in proportion to the page answers what the whole walk answers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.store.admin.prune import prune
from feast_lineage.consumer.store.read.dataset_version_page import History, one, page
from feast_lineage.consumer.store.read.dataset_versions import horizon, observations, versions
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id
from tests.consumer.store.read.test_dataset_versions import _STEPS, NAME, NS, _event
from tests.factories import at, dataset, run_event, schema_facet
from tests.store_helpers import Store

DID = dataset_id(NS, NAME)


def _window(found: list[Any], since: int | None, until: int | None) -> list[Any]:
    return [
        v
        for v in reversed(found)
        if (since is None or v.row.time_us >= since) and (until is None or v.row.time_us < until)
    ]


@pytest.mark.slow
def test_pages_and_single_versions_agree_with_the_walk(store: Store) -> None:
    if store.dialect != "sqlite":
        pytest.skip("the rule is the same on every database: the read's SQL is tested below")

    @settings(
        max_examples=60,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        st.lists(_STEPS, min_size=1, max_size=10),
        st.one_of(st.none(), st.integers(0, 7)),
        st.one_of(st.none(), st.integers(0, 7)),
        st.one_of(st.none(), st.integers(0, 7)),
        st.integers(0, 4),
        st.integers(1, 4),
    )
    def check(
        steps: list[dict[str, Any]],
        cutoff: int | None,
        since: int | None,
        until: int | None,
        offset: int,
        limit: int,
    ) -> None:
        store.reset()
        store.ingest(*[_event(step, i) for i, step in enumerate(steps)])
        if cutoff is not None:
            prune(store.engine, parse_us(at(cutoff)))
        since_us = parse_us(at(since)) if since is not None else None
        until_us = parse_us(at(until)) if until is not None else None
        with store.engine.connect() as conn:
            found = versions(observations(conn, DID), horizon(conn))
            history = History(conn, DID, horizon(conn))
            # deciding which states are versions in one pass answers the same
            assert History(conn, DID, horizon(conn), lookups=0).stated == history.stated
            wanted = _window(found, since_us, until_us)
            total, got = page(history, since_us, until_us, offset, limit)
            assert total == len(wanted)
            assert got == wanted[offset : offset + limit]
            for i, version in enumerate(found):
                assert one(history, version.row.id) == (version, found[i - 1] if i else None)
            known = {v.row.id for v in found}
            for row in observations(conn, DID):
                if row.id not in known:
                    assert one(history, row.id) is None

    check()


def test_a_page_of_a_long_history_reads_the_page(store: Store) -> None:
    """Writes and readers' statements: pages, deep pages and windows, on every database."""
    schemas = [schema_facet("a"), schema_facet("a", "b")]
    events = []
    for i in range(12):
        out = dataset(NS, NAME, schema=schemas[i // 6])
        events.append(run_event("COMPLETE", job=("spark", "w"), time=at(i * 10), outputs=[out]))
        ds = dataset(NS, NAME, schema=schemas[(i // 4) % 2])
        events.append(run_event("START", job=("spark", "r"), time=at(i * 10 + 5), inputs=[ds]))
    store.ingest(*events)
    with store.engine.connect() as conn:
        found = versions(observations(conn, DID))
        history = History(conn, DID, None)
        for since, until, offset, limit in [
            (None, None, 0, 5),
            (None, None, 10, 5),
            (at(30), at(95), 1, 3),
            (None, at(0), 0, 5),
        ]:
            s = parse_us(since) if since else None
            u = parse_us(until) if until else None
            wanted = _window(found, s, u)
            assert page(history, s, u, offset, limit) == (
                len(wanted),
                wanted[offset : offset + limit],
            )
    assert [v.changes for v in found if "write" not in v.changes] == [("schema",)]


def test_a_page_reads_whole_rows_of_its_own_states_only(store: Store) -> None:
    """A `datasetVersion` announced by every run's START: as many states as writes, all versions."""
    events = []
    for i in range(20):
        facets = {"version": {"datasetVersion": f"v{i}"}}
        announced = dataset(NS, NAME, **facets)
        run = f"00000000-0000-4000-8000-{i:012d}"
        events.append(
            run_event("START", run_id=run, job=("spark", "w"), time=at(i * 10), outputs=[announced])
        )
        events.append(
            run_event(
                "COMPLETE", run_id=run, job=("spark", "w"), time=at(i * 10 + 5), outputs=[announced]
            )
        )
    store.ingest(*events)
    with store.engine.connect() as conn:
        found = versions(observations(conn, DID))
        history = History(conn, DID, None)
        assert len(history.states) == 20
        wanted = _window(found, None, None)
        assert page(history, None, None, 4, 6) == (len(wanted), wanted[4:10])
        # the page's 6 versions are 3 writes and 3 states: only those 3 of the 20
        # states were read whole (the version before the oldest is a write)
        read = [v.row.id for v in wanted[4:11] if v.row.stated]
        assert len(read) == 3
        assert sorted(history.whole_rows) == sorted(read)
