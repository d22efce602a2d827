"""What a worker's request bodies cost in memory, and giving it back.

A worker's peak memory is its idle size plus what the bodies it holds at
once cost, parsed (docs/deployment.md, "Memory"):

    peak ≈ BASELINE_BYTES + EXPANSION × max(body_budget_bytes, max_request_bytes)

``EXPANSION`` is the most memory a byte of body costs while it is parsed,
validated and derived into rows, measured by ``bench/memory.py`` on the
worst case known (arrays of many small events) and rounded up. The budget of
bodies defaults to what the container's memory limit (cgroup v2
``memory.max``, or v1 ``memory.limit_in_bytes``) leaves for them, so that the
peak stays under the limit with a margin; without a limit, to
:data:`~feast_lineage.consumer.intake.budget.BODIES_PER_WORKER` bodies of the
largest size.

After a large body, :func:`return_memory` collects garbage and asks glibc to
give freed pages back (``malloc_trim``), so a worker does not keep the size
of its largest spike for good.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import os
from pathlib import Path
from typing import Protocol

from feast_lineage import glibc
from feast_lineage.consumer.intake.budget import BODIES_PER_WORKER
from feast_lineage.identity import forget_ids

log = logging.getLogger(__name__)

# Measured by bench/memory.py (bench/RESULTS.md, "Memory"): one 31 MiB batch
# of 2,000 large events took a worker 9.8 bytes a byte over its idle RSS.
EXPANSION = 10
# An idle worker's RSS with its feature repository's Feast registry open, as
# every worker opens it at start (230 MiB measured, Feast's import about 145 MB
# of it; 96 MiB without a registry), and its bounded caches full: the write
# cache (at most about 35 MB), the facet and id memos, SQLite's page cache.
BASELINE_BYTES = 300 * 1024 * 1024
# The share of the memory limit the formula may plan for: the rest is margin.
MEMORY_SHARE = 0.8
# The smallest budget sized from a limit (one body of this size always fits anyway).
MIN_BUDGET_BYTES = 1024 * 1024
# Once no body is held, after bodies held at least this much at once, memory is given back.
RETURN_AFTER_BYTES = 1024 * 1024

CGROUP_ROOT = Path("/sys/fs/cgroup")  # as AppSettings.cgroup_root
# Larger than any real limit: what cgroup v1 reports for "no limit".
_NO_LIMIT = 1 << 60


def container_memory_limit(root: Path = CGROUP_ROOT) -> int | None:
    """The memory limit of this process's cgroup in bytes; None when there is none."""
    for name in ("memory.max", "memory/memory.limit_in_bytes"):
        try:
            text = (root / name).read_text().strip()
        except OSError:
            continue
        if text == "max" or not text.isdigit():
            return None
        value = int(text)
        return value if 0 < value < _NO_LIMIT else None
    return None


def body_budget_bytes(
    max_request_bytes: int,
    *,
    configured: int | None = None,
    memory_limit: int | None = None,
    workers: int = 1,
) -> int:
    """The bytes of request bodies one worker may hold at once.

    ``configured`` wins; else the share of ``memory_limit`` (shared by
    ``workers`` processes) that the formula leaves for bodies, at most
    :data:`BODIES_PER_WORKER` bodies of the largest size; else that many.
    """
    largest = BODIES_PER_WORKER * max_request_bytes
    if configured is not None:
        return configured
    if memory_limit is None:
        return largest
    per_worker = memory_limit * MEMORY_SHARE / max(workers, 1)
    budget = int((per_worker - BASELINE_BYTES) / EXPANSION)
    budget = max(MIN_BUDGET_BYTES, min(budget, largest))
    peak = peak_bytes(max(budget, max_request_bytes))
    if peak > per_worker:
        log.warning(
            "one request body of max_request_bytes (%d) may take a worker to about %d MiB, "
            "more than its share of the memory limit (%d MiB); lower "
            "openlineage.consumer.max_request_bytes or give the container more memory",
            max_request_bytes,
            peak // 2**20,
            int(per_worker) // 2**20,
        )
    return budget


def peak_bytes(held_bytes: int) -> int:
    """A worker's expected peak memory while it holds ``held_bytes`` of bodies."""
    return BASELINE_BYTES + EXPANSION * held_bytes


def resident_bytes() -> int | None:
    """This process's resident memory (Linux), for the log; None where unknown."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def _malloc_trim() -> bool:
    c = glibc.libc()
    if c is None:
        return False
    with contextlib.suppress(AttributeError):
        trim = c.malloc_trim
        trim.argtypes = [ctypes.c_size_t]
        return bool(trim(0))
    return False


class Forgettable(Protocol):
    def clear(self) -> None: ...


def return_memory(*caches: Forgettable) -> bool:
    """Empty ``caches`` and the memo of ids, free unreachable objects, give freed pages back.

    The caches fill during a spike, their entries scattered among the
    spike's short-lived objects; while they live, the memory around them
    cannot go back to the system (a measured 180 of 200 MB after a batch of
    10,000 small events stayed resident without this). They fill again as
    events come. True when glibc gave some back. Run off the event loop.
    """
    for cache in caches:
        cache.clear()
    forget_ids()
    gc.collect()
    return _malloc_trim()
