"""The budget of bodies sized from the container's memory limit, and giving memory back."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from feast_lineage.consumer.intake.memory import (
    BASELINE_BYTES,
    EXPANSION,
    MEMORY_SHARE,
    body_budget_bytes,
    container_memory_limit,
    peak_bytes,
)

MiB = 2**20


def test_cgroup_v2_memory_max(tmp_path: Path) -> None:
    (tmp_path / "memory.max").write_text(f"{512 * MiB}\n")
    assert container_memory_limit(tmp_path) == 512 * MiB
    (tmp_path / "memory.max").write_text("max\n")
    assert container_memory_limit(tmp_path) is None


def test_cgroup_v1_limit_in_bytes(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    limit = tmp_path / "memory" / "memory.limit_in_bytes"
    limit.write_text(f"{1024 * MiB}\n")
    assert container_memory_limit(tmp_path) == 1024 * MiB
    limit.write_text("9223372036854771712\n")  # v1's "no limit"
    assert container_memory_limit(tmp_path) is None


def test_no_cgroup_files_means_no_limit(tmp_path: Path) -> None:
    assert container_memory_limit(tmp_path) is None


def test_the_budget_keeps_the_peak_under_the_limit_with_a_margin() -> None:
    limit = 512 * MiB
    budget = body_budget_bytes(8 * MiB, memory_limit=limit)
    assert budget < 4 * 8 * MiB  # the limit, not the default, sized it
    assert peak_bytes(budget) <= limit * MEMORY_SHARE
    assert peak_bytes(budget) == BASELINE_BYTES + EXPANSION * budget


def test_workers_share_the_limit() -> None:
    one = body_budget_bytes(32 * MiB, memory_limit=1024 * MiB, workers=1)
    two = body_budget_bytes(32 * MiB, memory_limit=1024 * MiB, workers=2)
    assert two < one / 2
    assert 2 * peak_bytes(two) <= 1024 * MiB * MEMORY_SHARE


def test_without_a_limit_or_with_a_large_one_four_bodies() -> None:
    assert body_budget_bytes(32 * MiB) == 128 * MiB
    assert body_budget_bytes(32 * MiB, memory_limit=64 * 2**30) == 128 * MiB


def test_a_configured_budget_wins() -> None:
    assert body_budget_bytes(32 * MiB, configured=5 * MiB, memory_limit=512 * MiB) == 5 * MiB


def test_a_body_limit_too_large_for_the_memory_limit_is_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        body_budget_bytes(64 * MiB, memory_limit=256 * MiB)
    assert "max_request_bytes" in caplog.text
