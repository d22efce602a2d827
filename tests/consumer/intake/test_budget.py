"""The per-worker budget of request body bytes, held as the bytes arrive."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from feast_lineage.consumer.intake.budget import BODIES_PER_WORKER, BodyBudget


def test_holds_grow_up_to_the_limit_and_come_back() -> None:
    budget = BodyBudget(100)
    first, second = budget.hold(), budget.hold()
    assert first.grow(60)
    assert second.grow(40)
    assert not second.grow(1)
    assert (first.size, second.size, budget.reserved) == (60, 40, 100)
    assert second.release() == 40
    assert not second.grow(41)
    assert second.grow(40)
    assert second.release() == 40
    assert first.release() == 60
    assert budget.reserved == 0
    assert budget.reset_peak() == 100


def test_a_declared_size_holds_nothing_until_its_bytes_arrive() -> None:
    """Many stalled uploads, each with one byte sent, leave room for everyone else."""
    budget = BodyBudget(1000)
    stalled = [budget.hold() for _ in range(100)]
    assert all(hold.grow(1) for hold in stalled)
    normal = budget.hold()
    assert normal.grow(800)
    assert budget.reserved == 900


def test_the_only_holder_may_always_grow_past_the_limit() -> None:
    budget = BodyBudget(100)
    alone = budget.hold()
    assert alone.grow(90)
    assert alone.grow(60)  # nobody else holds anything
    other = budget.hold()
    assert not other.grow(1)
    alone.release()
    assert other.grow(1)


def test_holds_grow_from_threads_without_losing_count() -> None:
    budget = BodyBudget(10**9)
    holds = [budget.hold() for _ in range(8)]

    def grow(index: int) -> None:
        for _ in range(2000):
            assert holds[index].grow(3)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(grow, range(8)))
    assert budget.reserved == 8 * 2000 * 3
    for hold in holds:
        hold.release()
    assert budget.reserved == 0


def test_without_a_memory_limit_the_budget_is_four_bodies_of_the_largest_size() -> None:
    assert BODIES_PER_WORKER == 4
    assert BodyBudget.for_body_limit(1024).limit == 4096
