"""How far an upgrade has got: the states a reader sees, with an injected clock."""

from __future__ import annotations

from feast_lineage.consumer.store.engine.migration_progress import Migration, MigrationProgress


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


PENDING = [Migration("0013", "Job versions."), Migration("0014", "Run roots.")]


def test_it_starts_by_checking_the_database() -> None:
    state = MigrationProgress(Clock()).now()
    assert (state.phase, state.since, state.phase_since, state.current) == (
        "starting",
        1000.0,
        1000.0,
        None,
    )


def test_each_pending_migration_runs_in_turn_with_its_own_start() -> None:
    clock = Clock()
    progress = MigrationProgress(clock)
    clock.now = 1005.0
    progress.plan(PENDING)
    state = progress.now()
    assert (state.phase, state.current, state.step, state.steps) == ("migrating", PENDING[0], 1, 2)
    assert state.phase_since == 1005.0
    clock.now = 1700.0
    progress.applied("0013")
    state = progress.now()
    assert (state.current, state.step, state.phase_since, state.since) == (
        PENDING[1],
        2,
        1700.0,
        1000.0,
    )
    clock.now = 1800.0
    progress.applied("0014")
    state = progress.now()
    assert (state.phase, state.current, state.step, state.steps) == ("done", None, 2, 2)
    progress.finished()  # already done: the figures stay
    assert progress.now() == state


def test_nothing_pending_is_done_at_once() -> None:
    progress = MigrationProgress(Clock())
    progress.plan([])
    assert progress.now().phase == "done"
    assert progress.now().steps == 0


def test_waiting_keeps_the_time_it_began() -> None:
    # The MySQL lock says "still waiting" every 10 s: the wait began at the first.
    clock = Clock()
    progress = MigrationProgress(clock)
    clock.now = 1010.0
    progress.waiting()
    clock.now = 1020.0
    progress.waiting()
    state = progress.now()
    assert (state.phase, state.phase_since) == ("waiting", 1010.0)
    progress.plan(PENDING)  # the lock is ours now
    assert progress.now().phase == "migrating"
    assert progress.now().phase_since == 1020.0


def test_a_revision_not_planned_changes_nothing() -> None:
    # Reporting must never break a migration.
    progress = MigrationProgress(Clock())
    progress.plan(PENDING)
    before = progress.now()
    progress.applied("0099")
    assert progress.now() == before
