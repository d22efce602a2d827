"""A namespace reset stopped between its transactions, then asked again: as if never sent.

The reset is several write transactions (its io listings first, its events
and runs in chunks, the rest last). A crash, a restart or an error between
any two of them leaves a store the next reset must still finish: other
namespaces' datasets end with the latest-write marker a store that never had
the namespace's events gives them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count
from typing import Any

import pytest
from sqlalchemy import Engine

from feast_lineage.consumer.store.admin import deletes, reset
from feast_lineage.consumer.store.admin.reset import reset_namespace
from feast_lineage.consumer.store.engine.transactions import write_transaction
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.identity import namespace_id
from tests.factories import at, dataset, dataset_event, job_event, run_event
from tests.store_helpers import Store

A = namespace_id("a")


def _by(producer: str, event: dict[str, Any]) -> dict[str, Any]:
    return {**event, "producer": producer}


def _run(n: int) -> str:
    return str(uuid.UUID(int=n))


# b's datasets, each last written or first read by one of a's events.
OTHERS = [
    _by("b-w", run_event("COMPLETE", run_id=_run(1), job=("b", "w"), time=at(10),
                         outputs=[dataset("b", "x")])),
    _by("c-w", run_event("COMPLETE", run_id=_run(2), job=("c", "w"), time=at(15),
                         outputs=[dataset("b", "x")])),
    _by("b-r", run_event("COMPLETE", run_id=_run(3), job=("b", "r"), time=at(12),
                         inputs=[dataset("b", "y")])),
    _by("b-decl", dataset_event("b", "z", time=at(5))),
    _by("b-s", run_event("START", run_id=_run(4), job=("b", "s"), time=at(11),
                         outputs=[dataset("b", "w")])),
    _by("b-s", run_event("COMPLETE", run_id=_run(4), job=("b", "s"), time=at(13))),
]  # fmt: skip
A_EVENTS = [
    _by("a-w", run_event("COMPLETE", run_id=_run(5), job=("a", "w"), time=at(20),
                         outputs=[dataset("b", "x"), dataset("b", "z"), dataset("b", "only_a")])),
    _by("a-r", run_event("COMPLETE", run_id=_run(6), job=("a", "r"), time=at(3),
                         inputs=[dataset("b", "y")])),
    _by("a-s", run_event("START", run_id=_run(7), job=("a", "s"), time=at(25),
                         outputs=[dataset("b", "w")])),
    _by("a-jw", job_event("a", "jw", time=at(30), outputs=[dataset("b", "w")])),
]  # fmt: skip


class Interrupted(Exception):
    """The reset's process stopped (a crash, a restart) between two write transactions."""


def _stopping_after(committed: int) -> Any:
    """A ``write_transaction`` that lets ``committed`` transactions commit, then raises."""
    done = [0]

    @contextmanager
    def stopping(engine: Engine, *args: Any, **kwargs: Any) -> Iterator[Any]:
        if done[0] == committed:
            raise Interrupted
        with write_transaction(engine, *args, **kwargs) as conn:
            yield conn
        done[0] += 1

    return stopping


def _marks(s: Store) -> dict[str, tuple[Any, ...]]:
    return {r["name"]: (r["producer"], r["producer_rank"]) for r in s.rows(t.datasets)}


def _ingest(s: Store, *, before_0029: bool) -> None:
    s.reset()
    s.ingest_each([*OTHERS, *A_EVENTS])
    if before_0029:  # rows stored before migration 0029 do not know whose event set them
        with s.engine.begin() as conn:
            conn.execute(t.datasets.update().values(producer_ns_id=None, updated_ns_id=None))


@pytest.mark.parametrize("before_0029", [False, True], ids=["since 0029", "before 0029"])
def test_a_reset_interrupted_at_any_transaction_then_asked_again_is_as_if_never_sent(
    two_stores: tuple[Store, Store], monkeypatch: pytest.MonkeyPatch, before_0029: bool
) -> None:
    """Stopped after each of its transactions in turn (one event or run a chunk), on a store
    that knows whose event set each marker and on one from before that (migration 0029)."""
    store, never = two_stores
    never.ingest_each(OTHERS)
    expected = _marks(never)
    stops = 0
    for committed in count(1):
        _ingest(store, before_0029=before_0029)
        with monkeypatch.context() as patch:
            stopping = _stopping_after(committed)
            for module in (reset, deletes):
                patch.setattr(module, "write_transaction", stopping)
            try:
                reset_namespace(store.engine, A, chunk=1)
            except Interrupted:
                stops += 1
            else:
                break
        reset_namespace(store.engine, A, chunk=1)
        marks = _marks(store)
        assert marks.pop("only_a") == (None, None), committed
        assert marks == expected, f"stopped after {committed} transactions"
        shown = {r["name"]: r["producer_ns_id"] for r in store.rows(t.datasets)}
        assert A not in shown.values(), f"stopped after {committed} transactions"
    # the listings, each of a's 4 events and 3 runs (and the chunks that find none left)
    assert stops >= 1 + 4 + 3


def test_a_reset_asked_again_after_one_that_deleted_the_events_is_as_if_never_sent(
    two_stores: tuple[Store, Store],
) -> None:
    """A reset of an earlier release stopped after deleting the namespace's listings and
    events (it had not yet noted whose marks to set again): the marks its events set still
    name its namespace (migration 0029), and are set again."""
    store, never = two_stores
    never.ingest_each(OTHERS)
    store.ingest_each([*OTHERS, *A_EVENTS])
    with store.engine.begin() as conn:
        jobs = t.jobs.select().with_only_columns(t.jobs.c.id).where(t.jobs.c.ns_id == A)
        conn.execute(t.io_listings.delete().where(t.io_listings.c.job_id.in_(jobs)))
        conn.execute(t.events.delete().where(t.events.c.ns_id == A))
    reset_namespace(store.engine, A)
    marks = _marks(store)
    assert marks.pop("only_a") == (None, None)
    assert marks == _marks(never)
    # The update time a's event set stays, and whose it was: hidden from whom a is hidden.
    x = store.dataset("b", "x")
    assert x is not None
    assert x["updated_ns_id"] == A
