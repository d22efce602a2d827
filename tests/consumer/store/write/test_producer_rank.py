"""Who produced a dataset: the last writer or declarer; a read never changes it."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from feast_lineage.consumer.store.write.merge import ranks_higher
from feast_lineage.consumer.store.write.producer_rank import event_rank, producer_rank
from tests.factories import at, dataset, dataset_event, run_event
from tests.store_helpers import Store

AIRFLOW = "https://github.com/apache/airflow/1.0"
SPARK = "https://github.com/OpenLineage/OpenLineage/tree/1.0/integration/spark"
DBT = "https://github.com/OpenLineage/OpenLineage/tree/1.0/integration/dbt"


def _by(producer: str, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "producer": producer}


def _rank(seconds: int, digest: str = "0" * 16) -> str:
    return f"{seconds:020d}{digest}"


@given(st.integers(0, 10**19), st.text("0123456789abcdef", min_size=16, max_size=16))
def test_a_producer_key_names_the_rank_of_its_event(seconds: int, digest: str) -> None:
    for writes in (True, False):
        assert event_rank(producer_rank(_rank(seconds, digest), writes=writes)) == _rank(
            seconds, digest
        )


def test_a_later_write_outranks_an_earlier_one_and_any_read() -> None:
    early, late = producer_rank(_rank(1), writes=True), producer_rank(_rank(2), writes=True)
    assert ranks_higher(late, early)
    assert not ranks_higher(early, late)
    read = producer_rank(_rank(9), writes=False)
    assert ranks_higher(early, read)
    assert not ranks_higher(read, early)


def test_among_reads_the_earliest_outranks_later_ones() -> None:
    first = producer_rank(_rank(1, "ffffffffffffffff"), writes=False)
    later = producer_rank(_rank(2, "0000000000000000"), writes=False)
    assert ranks_higher(first, later)
    assert not ranks_higher(later, first)
    assert ranks_higher(first, None)
    assert not ranks_higher(None, first)


def test_a_read_does_not_change_who_produced_a_dataset(store: Store) -> None:
    """airflow writes raw.trips; a later Spark job only reads it: still airflow's."""
    trips = dataset("postgres://db", "raw.public.trips")
    store.ingest_each(
        [
            _by(AIRFLOW, run_event("COMPLETE", time=at(1), outputs=[trips])),
            _by(SPARK, run_event("COMPLETE", job=("spark", "train"), time=at(2), inputs=[trips])),
        ]
    )
    row = store.dataset("postgres://db", "raw.public.trips")
    assert row is not None
    assert row["producer"] == AIRFLOW


def test_a_dataset_only_read_keeps_whoever_first_mentioned_it(store: Store) -> None:
    src = dataset("s3://lake", "src")
    store.ingest_each(
        [
            _by(SPARK, run_event("COMPLETE", job=("spark", "b"), time=at(5), inputs=[src])),
            _by(DBT, run_event("COMPLETE", job=("dbt", "a"), time=at(3), inputs=[src])),
        ]
    )
    row = store.dataset("s3://lake", "src")
    assert row is not None
    assert row["producer"] == DBT


def test_a_late_write_does_not_overwrite_a_newer_writer(store: Store) -> None:
    out = dataset("s3://lake", "out")
    store.ingest_each(
        [
            _by(DBT, dataset_event("s3://lake", "out", time=at(9))),
            _by(SPARK, run_event("COMPLETE", job=("spark", "w"), time=at(4), outputs=[out])),
        ]
    )
    row = store.dataset("s3://lake", "out")
    assert row is not None
    assert row["producer"] == DBT


# One dataset, mentioned by events of drawn producers, times and roles.
_mention = st.fixed_dictionaries(
    {
        "producer": st.sampled_from([AIRFLOW, SPARK, DBT]),
        "time": st.integers(0, 5),
        "role": st.sampled_from(["read", "write", "declare"]),
    }
)


def _event(m: dict[str, Any], i: int) -> dict[str, Any]:
    ds = dataset("lake", "d")
    job = ("j", f"job{i}")
    if m["role"] == "declare":
        return _by(m["producer"], dataset_event("lake", "d", time=at(m["time"])))
    if m["role"] == "write":
        return _by(m["producer"], run_event("COMPLETE", job=job, time=at(m["time"]), outputs=[ds]))
    return _by(m["producer"], run_event("COMPLETE", job=job, time=at(m["time"]), inputs=[ds]))


def _expected(mentions: list[dict[str, Any]]) -> set[str]:
    """The producers the rule allows (events at one time are told apart by content)."""
    writes = [m for m in mentions if m["role"] != "read"]
    if writes:
        last = max(m["time"] for m in writes)
        return {m["producer"] for m in writes if m["time"] == last}
    first = min(m["time"] for m in mentions)
    return {m["producer"] for m in mentions if m["time"] == first}


def test_the_producer_does_not_depend_on_delivery_order(store: Store) -> None:
    """In order one by one, then shuffled in batches: the same producer, the rule's."""
    examples = 40 if store.dialect == "sqlite" else 12

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(st.lists(_mention, min_size=1, max_size=6), st.data())
    def check(mentions: list[dict[str, Any]], data: st.DataObject) -> None:
        events = [_event(m, i) for i, m in enumerate(mentions)]
        order = data.draw(st.permutations(range(len(events))), label="order")
        cuts = data.draw(st.lists(st.booleans(), min_size=len(events), max_size=len(events)))
        producers = []
        for arrangement, batches in ((range(len(events)), [True] * len(events)), (order, cuts)):
            store.reset()
            batch: list[dict[str, Any]] = []
            for position, cut in zip(arrangement, batches, strict=True):
                batch.append(events[position])
                if cut:
                    store.ingest(*batch)
                    batch = []
            if batch:
                store.ingest(*batch)
            row = store.dataset("lake", "d")
            assert row is not None
            producers.append(row["producer"])
        assert producers[0] == producers[1]
        assert producers[0] in _expected(mentions)

    check()
