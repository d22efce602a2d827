"""The per-worker budget of request body bytes."""

from __future__ import annotations

from feast_lineage.consumer.intake.budget import BODIES_PER_WORKER, BodyBudget


def test_reservations_fit_up_to_the_limit_and_come_back() -> None:
    budget = BodyBudget(100)
    assert budget.try_reserve(60)
    assert budget.try_reserve(40)
    assert not budget.try_reserve(1)
    budget.release(40)
    assert not budget.try_reserve(41)
    assert budget.try_reserve(40)
    budget.release(40)
    budget.release(60)
    assert budget.reserved == 0


def test_one_body_always_fits_an_empty_budget() -> None:
    budget = BodyBudget(100)
    assert budget.try_reserve(150)
    assert not budget.try_reserve(1)
    budget.release(150)
    assert budget.try_reserve(1)


def test_the_budget_is_four_bodies_of_the_largest_size() -> None:
    assert BODIES_PER_WORKER == 4
    assert BodyBudget.for_body_limit(1024).limit == 4096
