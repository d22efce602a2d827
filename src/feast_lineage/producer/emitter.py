"""Sending events to every sink without ever failing the Feast operation.

A sink is the openlineage-python client (the configured transport) or the
local lineage store (self-reporting). :meth:`Emitter.emit` sends one
operation's events to each sink in order. When a sink fails, the rest of
that operation's events skip it (a down collector costs one timeout, not
one per event), and a warning is logged once: the sink warns again only
after it has worked in between. :meth:`Emitter.operation` widens that scope
to several emits, such as the events of one materialization.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol

from openlineage.client.serde import Serde

log = logging.getLogger("feast_lineage.producer")


class Sink(Protocol):
    name: str

    def send(self, events: Sequence[Any]) -> None: ...

    def close(self) -> None: ...


class ClientSink:
    """The configured transport, through openlineage-python's client."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.name = f"the {client.transport.kind} transport"

    def send(self, events: Sequence[Any]) -> None:
        for event in events:
            self.client.emit(event)

    def close(self) -> None:
        self.client.close(timeout=5.0)


class LocalSink:
    """The local lineage store (see :mod:`feast_lineage.consumer.embedded`)."""

    name = "the local lineage store"

    def __init__(self, store: Any) -> None:
        self.store = store

    def send(self, events: Sequence[Any]) -> None:
        self.store.write([Serde.to_json(event).encode() for event in events])

    def close(self) -> None:
        self.store.close()


class Emitter:
    def __init__(self, sinks: list[Sink]) -> None:
        self.sinks = sinks
        self._failing: set[str] = set()
        self._lock = threading.Lock()
        self._scope = threading.local()

    @contextmanager
    def operation(self) -> Iterator[set[str]]:
        """Within this block (on this thread), a sink that failed once is skipped.

        Yields the names of the sinks that failed, filled in as they fail.
        """
        outer = getattr(self._scope, "skip", None)
        skip: set[str] = set() if outer is None else outer
        self._scope.skip = skip
        try:
            yield skip
        finally:
            self._scope.skip = outer

    def emit(self, events: Sequence[Any]) -> int:
        """Send ``events`` to every sink; returns how many sinks took them all."""
        if not events:
            return 0
        scoped: set[str] | None = getattr(self._scope, "skip", None)
        skip = set() if scoped is None else scoped
        delivered = 0
        for sink in self.sinks:
            if sink.name in skip:
                continue
            try:
                sink.send(events)
            except Exception as err:  # lineage must never break a Feast operation
                skip.add(sink.name)
                self._failed(sink, err)
            else:
                delivered += 1
                with self._lock:
                    self._failing.discard(sink.name)
        return delivered

    def _failed(self, sink: Sink, err: Exception) -> None:
        with self._lock:
            first = sink.name not in self._failing
            self._failing.add(sink.name)
        message = "OpenLineage events were not sent to %s (%s: %s); the Feast operation goes on"
        if first:
            log.warning(message, sink.name, type(err).__name__, _one_line(err))
        else:
            log.debug(message, sink.name, type(err).__name__, _one_line(err))

    def close(self) -> None:
        for sink in self.sinks:
            try:
                sink.close()
            except Exception as err:
                log.debug("closing %s failed: %s", sink.name, err)


def _one_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return text[0][:300] if text else ""
