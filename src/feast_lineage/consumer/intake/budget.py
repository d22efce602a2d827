"""How many bytes of request bodies one worker holds while it ingests them.

A request holds a share of the budget (a :class:`BodyHold`) that grows as
its bytes arrive, never from what its ``Content-Length`` declares: a client
that declares 32 MiB and sends one byte holds one byte, so stalled uploads
cannot lock others out. Inflating a gzip body grows the hold by the inflated
bytes too. The hold is given back once the request is answered.

Growing past the budget fails (the HTTP edge answers ``503`` with
``Retry-After``), so a burst of large batches from many clients waits at the
clients (the OpenLineage client retries a 503) instead of in the server's
memory. A request that holds everything reserved may always grow (up to the
body size limit, which the edge enforces), so no body that the limit allows
is refused for ever, and the bytes held never exceed
``max(limit, max_request_bytes)``.

The budget's default size follows the memory the worker may use
(:mod:`feast_lineage.consumer.intake.memory`). Holds grow from the event loop
and from the threads that inflate bodies, so the counts take a lock.
"""

from __future__ import annotations

import threading

# A worker holds at most this many bodies of the largest size allowed, when
# no memory limit sizes the budget.
BODIES_PER_WORKER = 4


class BodyBudget:
    def __init__(self, limit_bytes: int) -> None:
        self.limit = limit_bytes
        self.reserved = 0
        self.peak = 0  # the most bytes held at once since the last reset_peak()
        self._lock = threading.Lock()

    @classmethod
    def for_body_limit(cls, max_request_bytes: int) -> BodyBudget:
        return cls(BODIES_PER_WORKER * max_request_bytes)

    def hold(self) -> BodyHold:
        """A new, empty share of the budget for one request."""
        return BodyHold(self)

    def _grow(self, hold: BodyHold, size: int) -> bool:
        with self._lock:
            others = self.reserved - hold.size
            if others and self.reserved + size > self.limit:
                return False
            self.reserved += size
            hold.size += size
            self.peak = max(self.peak, self.reserved)
            return True

    def _release(self, hold: BodyHold) -> int:
        with self._lock:
            self.reserved -= hold.size
            size, hold.size = hold.size, 0
            return size

    def reset_peak(self) -> int:
        """The peak since the last reset; the peak starts again from what is held now."""
        with self._lock:
            peak, self.peak = self.peak, self.reserved
            return peak


class BodyHold:
    """One request's share of a :class:`BodyBudget`."""

    __slots__ = ("_budget", "size")

    def __init__(self, budget: BodyBudget) -> None:
        self._budget = budget
        self.size = 0

    def grow(self, size: int) -> bool:
        """Add ``size`` bytes; False (nothing added) when the budget cannot take them."""
        return self._budget._grow(self, size)

    def release(self) -> int:
        """Give everything back (the bytes it held); the hold may grow again afterwards."""
        return self._budget._release(self)

    @property
    def budget(self) -> BodyBudget:
        return self._budget
