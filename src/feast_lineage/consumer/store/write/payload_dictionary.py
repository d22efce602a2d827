"""The store's payload dictionary: found in the store, or trained from its events.

A writer starts without one, or with the one its store holds
(:meth:`PayloadDictionary.load`). Each time it has stored ``train_after``
more events without one, it looks again, inside a write transaction (the
store's write lock makes writers, in any process, take turns): a
dictionary another writer stored is taken; else one is trained from the
store's latest ``SAMPLES`` events and stored. From then on its
:class:`~..schema.codec.PayloadCodec` compresses every payload with it.
Payloads stored before keep their frames: each is read alone, as before.

Training takes about 0.2 s of one writer's time, once per store: 2,000
events of the standard workload; a store with fewer events than
``MIN_SAMPLES`` when a writer looks (events pruned, or many refused) tries
again later.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import AbstractContextManager

import zstandard
from sqlalchemy import Connection, select
from sqlalchemy.exc import SQLAlchemyError

from feast_lineage.consumer.store.engine.dialect import insert_ignore
from feast_lineage.consumer.store.schema import tables as t
from feast_lineage.consumer.store.schema.codec import PayloadCodec
from feast_lineage.event_time import now_us

log = logging.getLogger(__name__)

TRAIN_AFTER = 1_000  # events a writer stores without a dictionary before it looks for one
SAMPLES = 2_000  # the latest events a dictionary is trained from
MIN_SAMPLES = 200  # fewer: not yet
SIZE = 32 * 1024  # bytes: the size that compressed the standard workload best (16 to 110 KB)

Transaction = Callable[[], AbstractContextManager[Connection]]


def stored_dictionary(conn: Connection) -> bytes | None:
    """The store's dictionary (its first, should writers have stored two at once)."""
    d = t.payload_dicts.c
    data = conn.execute(select(d.data).order_by(d.id).limit(1)).scalar()
    return None if data is None else bytes(data)


def train(conn: Connection) -> bytes | None:
    """A dictionary trained from the store's latest events; None when too few to train on."""
    e = t.events.c
    rows = conn.execute(select(e.payload).order_by(e.id.desc()).limit(SAMPLES)).scalars()
    samples = [payload.encode() for payload in rows]
    if len(samples) < MIN_SAMPLES:
        return None
    try:
        return zstandard.train_dictionary(SIZE, samples).as_bytes()
    except zstandard.ZstdError as err:  # samples too small or too alike to train on
        log.info("no payload dictionary from %d events yet: %s", len(samples), err)
        return None


class PayloadDictionary:
    """When a writer looks for, or trains, its store's dictionary."""

    def __init__(self, codec: PayloadCodec, train_after: int = TRAIN_AFTER) -> None:
        self.codec = codec
        self._train_after = train_after
        self._pending = 0  # events stored without one since it last looked

    def load(self, conn: Connection) -> None:
        """Take the store's dictionary, if it has one."""
        data = stored_dictionary(conn)
        if data is not None:
            self.codec.use(data)

    def stored(self, events: int, transaction: Transaction) -> None:
        """``events`` were stored; look for (or train) a dictionary when it is time."""
        if self.codec.dict_id or events <= 0:
            return
        self._pending += events
        if self._pending < self._train_after:
            return
        self._pending = 0
        try:
            data = self._find_or_train(transaction)
        except SQLAlchemyError as err:  # the events are stored: ingest goes on without one
            log.warning("could not store a payload dictionary: %s", type(err).__name__)
            return
        if data is not None:
            dict_id = self.codec.use(data)
            log.info("payloads are compressed with dictionary %d from now on", dict_id)

    @staticmethod
    def _find_or_train(transaction: Transaction) -> bytes | None:
        with transaction() as conn:
            data = stored_dictionary(conn)
            if data is not None:
                return data
            data = train(conn)
            if data is None:
                return None
            dict_id = zstandard.ZstdCompressionDict(data).dict_id()
            row = {"id": dict_id, "data": data, "created_us": now_us()}
            conn.execute(insert_ignore(conn, t.payload_dicts, ["id"]), [row])
            return stored_dictionary(conn)
