"""How many bytes of request bodies one worker holds while it ingests them.

Each ingest request reserves its body's size (its ``Content-Length``, or the
body size limit when it does not say) before the body is read, and gives it
back once answered. A request that would take a worker past its budget is
refused at once with ``503`` and ``Retry-After``, before its body is read,
so a burst of large batches from many clients waits at the clients (the
OpenLineage client retries a 503) instead of in the server's memory. A
request always fits while nothing else is reserved, so no body that the size
limit allows is refused for ever.

Used from the event loop only, so it needs no lock.
"""

from __future__ import annotations

# A worker holds at most this many bodies of the largest size allowed.
BODIES_PER_WORKER = 4


class BodyBudget:
    def __init__(self, limit_bytes: int) -> None:
        self.limit = limit_bytes
        self.reserved = 0

    @classmethod
    def for_body_limit(cls, max_request_bytes: int) -> BodyBudget:
        return cls(BODIES_PER_WORKER * max_request_bytes)

    def try_reserve(self, size: int) -> bool:
        if self.reserved and self.reserved + size > self.limit:
            return False
        self.reserved += size
        return True

    def release(self, size: int) -> None:
        self.reserved -= size
