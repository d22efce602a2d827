"""How long a request body may take (an injected clock: no waiting)."""

from __future__ import annotations

import pytest

from feast_lineage.consumer.intake.body_pace import BodyPace


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_next_bytes_may_take_the_read_timeout() -> None:
    clock = Clock()
    pace = BodyPace(read_timeout=60, min_rate=0, clock=clock)
    assert pace.next_wait() == 60
    clock.now += 3600  # no least rate: only the wait for each read counts
    pace.arrived(1)
    assert pace.next_wait() == 60


def test_a_trickle_within_the_read_timeout_falls_behind_the_least_rate() -> None:
    clock = Clock()
    pace = BodyPace(read_timeout=60, min_rate=1000, clock=clock)
    for _ in range(10):  # a byte every 50 s: each read is in time
        clock.now += 50
        pace.arrived(1)
    # 500 s for 10 bytes: far behind 60 s + 10 bytes at 1000 bytes/s.
    assert pace.next_wait() < 0
    assert "10 bytes arrived in 500 s" in pace.too_slow()


def test_a_slow_honest_client_keeps_its_time() -> None:
    """A 32 MiB body at 2 KiB/s (16 kbit/s, a poor mobile link) with pauses of 45 s."""
    clock = Clock()
    pace = BodyPace(read_timeout=60, min_rate=1024, clock=clock)
    sent = 0
    while sent < 32 * 2**20:
        clock.now += 45 if sent % (4 * 2**20) == 0 else 32
        assert pace.next_wait() >= 0, sent
        pace.arrived(64 * 1024)
        sent += 64 * 1024
    assert pace.next_wait() == 60


@pytest.mark.parametrize(
    ("rate", "received", "elapsed", "wait"), [(100, 0, 10, 50), (100, 1000, 65, 5)]
)
def test_the_wait_is_the_least_of_the_read_timeout_and_the_rate_deadline(
    rate: int, received: int, elapsed: float, wait: float
) -> None:
    clock = Clock()
    pace = BodyPace(read_timeout=60, min_rate=rate, clock=clock)
    pace.arrived(received)
    clock.now += elapsed
    assert pace.next_wait() == pytest.approx(wait)
