"""The store's payload dictionary: found in the store, or trained from its events.

A writer opening a store takes the dictionary the store holds
(:meth:`PayloadDictionary.load`), or trains one then if the store already
holds ``train_after`` events (a store upgraded to migration 0025, or one
a short-lived process opens). Else, each time it has stored
``train_after`` more events without one, it looks again. Training reads
samples of the store's latest events (at most ``SAMPLES`` events and
``SAMPLE_BYTES`` of their text, each at most ``MAX_SAMPLE`` bytes: large
events are left out, so training costs about the same whatever the events'
size) and trains outside any transaction; the dictionary is then stored in
a write transaction (the store's write lock makes writers, in any process,
take turns) that first looks again: a dictionary another writer stored
meanwhile is taken instead. From then on the writer's
:class:`~..schema.codec.PayloadCodec` compresses every payload with it.
Payloads stored before keep their frames: each is read alone, as before.

A dictionary that cannot be trained or stored is logged, never raised: the
events that were being written are stored, and ingest goes on without one.
A dictionary holds pieces of the text of the events it was trained from,
and is never deleted (every payload compressed with it needs it), also
when a prune or a namespace reset deletes those events.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager

import zstandard
from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.exc import SQLAlchemyError

from feast_lineage.consumer.store.engine.dialect import insert_ignore
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.event_time import now_us

log = logging.getLogger(__name__)

TRAIN_AFTER = 1_000  # events a store holds (or a writer stored) before a dictionary is trained
SAMPLES = 2_000  # at most this many of the latest events are samples
SAMPLE_BYTES = 8 << 20  # and at most this much of their text
MAX_SAMPLE = 64 << 10  # an event larger than this (its text) is no sample
_MAX_STORED_SAMPLE = 16 << 10  # nor one whose stored (compressed) payload is larger
MIN_SAMPLES = 200  # fewer: not yet
SIZE = 32 * 1024  # bytes: the size that compressed the standard workload best (16 to 110 KB)

Transaction = Callable[[], AbstractContextManager[Connection]]


def stored_dictionary(conn: Connection) -> bytes | None:
    """The store's dictionary (its first, should writers have stored two at once)."""
    d = t.payload_dicts.c
    data = conn.execute(select(d.data).order_by(d.id).limit(1)).scalar()
    return None if data is None else bytes(data)


def holds(conn: Connection, events: int) -> bool:
    """Whether the store holds at least ``events`` events."""
    some = select(t.events.c.id).limit(events).subquery()
    return int(conn.execute(select(func.count()).select_from(some)).scalar_one()) >= events


def samples(conn: Connection) -> list[bytes]:
    """The texts of the store's latest events, within the sample limits."""
    e = t.events.c
    stmt = (
        select(e.payload)
        .where(func.length(e.payload) <= _MAX_STORED_SAMPLE)
        .order_by(e.id.desc())
        .limit(SAMPLES)
    )
    out: list[bytes] = []
    total = 0
    for payload in conn.execute(stmt).scalars():
        text = payload.encode()
        if len(text) > MAX_SAMPLE:
            continue
        out.append(text)
        total += len(text)
        if total >= SAMPLE_BYTES:
            break
    return out


def train(texts: list[bytes]) -> bytes | None:
    """A dictionary trained from ``texts``; None when too few to train on."""
    if len(texts) < MIN_SAMPLES:
        return None
    try:
        given: list[bytes | bytearray | memoryview] = list(texts)
        return zstandard.train_dictionary(SIZE, given).as_bytes()
    except zstandard.ZstdError as err:  # samples too small or too alike to train on
        log.info("no payload dictionary from %d events yet: %s", len(texts), err)
        return None


class PayloadDictionary:
    """When a writer looks for, or trains, its store's dictionary."""

    def __init__(self, engine: Engine, codec: PayloadCodec, train_after: int = TRAIN_AFTER):
        self._engine = engine
        self.codec = codec
        self._train_after = train_after
        self._pending = 0  # events stored without one since it last looked

    def load(self, transaction: Transaction) -> None:
        """Take the store's dictionary; train one now if the store holds enough events."""
        try:
            with self._engine.connect() as conn:
                data = stored_dictionary(conn)
                enough = data is None and holds(conn, self._train_after)
        except SQLAlchemyError as err:  # the writer still writes, each payload alone
            log.warning("could not read the payload dictionary: %s", type(err).__name__)
            return
        if data is not None:
            self.codec.use(data)
        elif enough:
            self._look(transaction)

    def stored(self, events: int, transaction: Transaction) -> None:
        """``events`` were stored; look for (or train) a dictionary when it is time."""
        if self.codec.dict_id or events <= 0:
            return
        self._pending += events
        if self._pending < self._train_after:
            return
        self._pending = 0
        self._look(transaction)

    def _look(self, transaction: Transaction) -> None:
        try:
            data = self._find_or_train(transaction)
        except Exception as err:  # whatever it is, the events are stored
            log.warning("no payload dictionary for now: %s: %s", type(err).__name__, err)
            return
        if data is not None:
            dict_id = self.codec.use(data)
            log.info("payloads are compressed with dictionary %d from now on", dict_id)

    def _find_or_train(self, transaction: Transaction) -> bytes | None:
        with self._engine.connect() as conn:
            data = stored_dictionary(conn)
            texts = samples(conn) if data is None else []
        if data is not None:
            return data
        trained = train(texts)
        del texts
        if trained is None:
            return None
        with transaction() as conn:  # the write lock: another writer may have stored one
            data = stored_dictionary(conn)
            if data is not None:
                return data
            dict_id = zstandard.ZstdCompressionDict(trained).dict_id()
            row = {"id": dict_id, "data": trained, "created_us": now_us()}
            conn.execute(insert_ignore(conn, t.payload_dicts, ["id"]), [row])
            return stored_dictionary(conn)
