"""What a page of versions asks, the same for a dataset's and a job's: a time window and a page.

The routes build a :class:`VersionWindow` from the query
(:mod:`feast_lineage.consumer.routes.version_pages`); the dataset and job
version services take it as a value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class VersionWindow:
    """The versions whose time is in [since, until) (µs, either bound open), newest first.

    ``limit`` of them from ``offset``.
    """

    since_us: int | None = None
    until_us: int | None = None
    limit: int = 50
    offset: int = 0
