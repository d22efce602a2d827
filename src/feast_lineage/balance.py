"""Keeping keep-alive connections off a busy worker (``serve_lineage --workers N``).

Connections are not spread evenly by the kernel: whichever worker is waiting
when a connection arrives accepts it, and an event loop accepts every
connection pending at once, so a few long-lived keep-alive connections (a
producer's HTTP session) can all end up on one worker while the others idle
(measured in bench/RESULTS.md: two clients on one of two workers in about
half the trials). Each worker therefore publishes how many requests it has
in flight (:class:`WorkerLoad`, in memory shared by the workers), and
:class:`BalanceConnections` ends a keep-alive connection (``Connection:
close`` on its response) when its worker has two or more requests in flight
than the least busy one. The client reconnects, and a free worker, whose
event loop is not waiting for the GIL, accepts first.
"""

from __future__ import annotations

import ctypes
import multiprocessing
from collections.abc import MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]


class WorkerLoad:
    """Requests in flight per worker, in memory the forked workers share.

    Each worker writes only its own slot (from its event loop thread) and
    reads the others', so no lock is needed.
    """

    def __init__(self, workers: int) -> None:
        self._counts = multiprocessing.RawArray(ctypes.c_int, workers)
        self.slot = 0

    @property
    def slots(self) -> int:
        return len(self._counts)

    def become(self, slot: int) -> None:
        """Called in a worker process as it starts: it owns ``slot`` now."""
        self.slot = slot
        self._counts[slot] = 0

    def enter(self) -> None:
        self._counts[self.slot] += 1

    def leave(self) -> None:
        self._counts[self.slot] -= 1

    def excess(self) -> int:
        """How many more requests this worker has in flight than the least busy other."""
        counts = self._counts
        others = [counts[i] for i in range(len(counts)) if i != self.slot]
        return counts[self.slot] - min(others) if others else 0


class BalanceConnections:
    """ASGI middleware: hand connections of a busy worker back to the kernel."""

    def __init__(self, app: Any, load: WorkerLoad, *, threshold: int = 2) -> None:
        self.app = app
        self.load = load
        self.threshold = threshold

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        load = self.load

        async def send_balanced(message: Message) -> None:
            if message["type"] == "http.response.start" and load.excess() >= self.threshold:
                headers = [*message.get("headers", []), (b"connection", b"close")]
                message = {**message, "headers": headers}
            await send(message)

        load.enter()
        try:
            await self.app(scope, receive, send_balanced)
        finally:
            load.leave()
