"""How long the server waits for the rest of a request body.

Two limits, as production servers set them (nginx's ``client_body_timeout``,
Apache's ``RequestReadTimeout body=...,MinRate=...``):

- ``read_timeout``: the longest wait for the next bytes of a body;
- ``min_rate``: the least average rate, in bytes per second. A body may
  take ``read_timeout`` plus one second for every ``min_rate`` bytes
  received so far: a client that trickles a byte now and then, just within
  the read timeout, falls behind after ``read_timeout`` seconds.

A body past either limit is answered ``408`` and its bytes given back. The
clock is injected so that the rules can be tested without waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class BodyPace:
    read_timeout: float  # seconds
    min_rate: float  # bytes per second; 0: no least rate
    clock: Callable[[], float] = time.monotonic
    started: float = field(init=False)
    received: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def arrived(self, size: int) -> None:
        self.received += size

    def next_wait(self) -> float:
        """Seconds to wait for the next bytes; 0 or less: the body is too slow already."""
        wait = self.read_timeout
        if self.min_rate > 0:
            allowed = self.read_timeout + self.received / self.min_rate
            wait = min(wait, self.started + allowed - self.clock())
        return wait

    def too_slow(self) -> str:
        """Why the body was given up (for the 408 message)."""
        elapsed = self.clock() - self.started
        return (
            f"the request body stalled: {self.received} bytes arrived in {elapsed:.0f} s "
            f"(the server waits at most {self.read_timeout:g} s for more bytes, and for an "
            f"average of at least {self.min_rate:g} bytes/s after that); send the body at once"
        )
