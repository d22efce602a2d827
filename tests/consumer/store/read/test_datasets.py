"""The Datasets list: a dataset's producer and update time, as a scoped caller may see them.

A job of a namespace the caller may not see can write or read a dataset the
caller sees. The dataset's producer is then that job's producer and its update
time that job's event time: a caller who may not see the job's namespace gets
null for both, and sorts by what it is shown.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from feast_lineage.consumer.store.read.datasets import dataset_rows
from feast_lineage.consumer.store.read.sorting import Sort
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.event_time import parse_us
from feast_lineage.identity import dataset_id, namespace_id
from tests.factories import at, dataset, run_event
from tests.store_helpers import Store

TEAM, HIDDEN = "driver_ranking", "secret://hidden-team"
SOURCE = "data_source/driver_hourly_stats_source"
TEAM_PRODUCER = "https://example.com/teamproducer"
SECRET_PRODUCER = "https://example.com/secretproducer"
TEAM_ONLY = frozenset({namespace_id(TEAM)})
BOTH = frozenset({namespace_id(TEAM), namespace_id(HIDDEN)})


def by(producer: str, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "producer": producer}


def us(when: str) -> int:
    return parse_us(when)


def seed(store: Store) -> None:
    """The team writes the source and ``stats``; then a hidden job writes the source, later."""
    store.ingest(
        by(
            TEAM_PRODUCER,
            run_event(
                "COMPLETE",
                job=(TEAM, "team_job"),
                time=at(10),
                outputs=[dataset(TEAM, SOURCE), dataset(TEAM, "stats")],
            ),
        ),
        *(
            by(
                SECRET_PRODUCER,
                run_event(
                    kind,
                    run_id=run,
                    job=(HIDDEN, "SECRET_loader_job"),
                    time=time,
                    outputs=[dataset(TEAM, SOURCE)],
                ),
            )
            for kind, run, time in (
                ("START", "0190aaaa-0000-7000-8000-000000000001", at(100)),
                ("FAIL", "0190aaaa-0000-7000-8000-000000000001", at(200)),
            )
        ),
    )


def rows(
    store: Store, visible: frozenset[int] | None, sort: Sort, listed: frozenset[int] | None = None
) -> list[tuple[Any, ...]]:
    """The datasets of ``listed`` (all ``visible`` ones by default) a caller seeing
    ``visible`` is shown: (name, producer, update time)."""
    with store.engine.connect() as conn:
        _total, found = dataset_rows(
            conn, visible if listed is None else listed, None, sort, 0, 10, visible=visible
        )
    return [(r.name, r.producer, r.updated_us) for r in found]


def test_a_scoped_caller_gets_null_for_a_hidden_jobs_producer_and_update_time(
    store: Store,
) -> None:
    seed(store)
    by_name = Sort("name")
    assert rows(store, TEAM_ONLY, by_name) == [
        (SOURCE, None, None),  # the hidden job's
        ("stats", TEAM_PRODUCER, us(at(10))),
    ]
    # Who may see the hidden namespace, and the unscoped caller, see them, also when
    # listing the team's namespace only (a filter, not what they may see).
    for scope in (BOTH, None):
        assert rows(store, scope, by_name)[0] == (SOURCE, SECRET_PRODUCER, us(at(200)))
        assert rows(store, scope, by_name, TEAM_ONLY)[0] == (SOURCE, SECRET_PRODUCER, us(at(200)))


def test_sorting_by_producer_or_update_time_orders_by_what_the_caller_is_shown(
    store: Store,
) -> None:
    seed(store)
    for key in ("producer", "updated"):
        for descending in (False, True):
            names = [name for name, *_ in rows(store, TEAM_ONLY, Sort(key, descending))]
            assert names == ["stats", SOURCE], (key, descending)  # null last, either way
    # The unscoped caller's order is by the values themselves: the secret sorts first.
    assert rows(store, None, Sort("updated", True))[0][0] == SOURCE
    assert rows(store, None, Sort("producer"))[0][0] == SOURCE  # "s" before "t"


def test_a_row_stored_before_its_namespaces_were_recorded_shows_a_scoped_caller_neither(
    store: Store,
) -> None:
    """Migration 0029 leaves them null (unknown): a scoped caller is shown neither, the
    unscoped caller both; a later event of the team's sets them again."""
    seed(store)
    with store.engine.begin() as conn:
        conn.execute(update(t.datasets).values(producer_ns_id=None, updated_ns_id=None))
    assert rows(store, BOTH, Sort("name")) == [(SOURCE, None, None), ("stats", None, None)]
    assert rows(store, None, Sort("name"))[1] == ("stats", TEAM_PRODUCER, us(at(10)))
    store.ingest(
        by(
            TEAM_PRODUCER,
            run_event(
                "COMPLETE", job=(TEAM, "team_job"), time=at(300), outputs=[dataset(TEAM, SOURCE)]
            ),
        )
    )
    assert rows(store, TEAM_ONLY, Sort("name"))[0] == (SOURCE, TEAM_PRODUCER, us(at(300)))


def test_ingest_records_whose_events_set_them_in_any_order(store: Store) -> None:
    """A read (the hidden job's, later) moves the update time, never the producer."""
    team = by(
        TEAM_PRODUCER,
        run_event("COMPLETE", job=(TEAM, "team_job"), time=at(10), outputs=[dataset(TEAM, SOURCE)]),
    )
    hidden = by(
        SECRET_PRODUCER,
        run_event("COMPLETE", job=(HIDDEN, "reader"), time=at(50), inputs=[dataset(TEAM, SOURCE)]),
    )
    for events in ((team, hidden), (hidden, team)):
        store.reset()
        store.ingest_each(events)
        row = store.one(t.datasets, t.datasets.c.id == dataset_id(TEAM, SOURCE))
        assert row is not None
        assert (row["producer"], row["producer_ns_id"]) == (TEAM_PRODUCER, namespace_id(TEAM))
        assert (row["updated_us"], row["updated_ns_id"]) == (us(at(50)), namespace_id(HIDDEN))
