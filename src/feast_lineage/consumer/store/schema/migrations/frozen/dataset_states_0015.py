"""FROZEN at migration 0015: never change this module.

A dataset state's id and rank, copied from
``consumer/store/write/dataset_versions.py`` (``state_id``, ``state_rank``)
as they were when migration 0015 was written (canonical JSON and digests
from the 0009 frozen copy), so that the state rows 0015 makes of stored
statement rows are the rows ingest makes of the same statements. Why
frozen, and why ``duplicates`` lists this beside its source: see
``frozen/__init__.py``.
"""

from __future__ import annotations

from feast_lineage.consumer.store.schema.migrations.frozen.payloads_0009 import digest, dumps

_MASK = (1 << 63) - 1
# -MIN_US of event_time.py: 1900-01-01T00:00:00Z in µs, negated.
SORT_OFFSET = 2_208_988_800_000_000
_RANK_TOP = 10**20 - 1
_NO_RUN = "0" * 32


def state_id(
    dataset: int, schema_id: str | None, dataset_version: str | None, symlinks_id: str | None
) -> int:
    """The id of a dataset's state: a digest of the dataset and what is stated."""
    stated = dumps([dataset, schema_id, dataset_version, symlinks_id])
    return int(digest(stated)[:16], 16) & _MASK


def state_rank(time_us: int, run_id: bytes | None, event_type: int | None) -> str:
    """A statement's rank: the earliest time ranks highest, then the run's id, then the type."""
    run = run_id.hex() if run_id is not None else _NO_RUN
    return f"{_RANK_TOP - (time_us + SORT_OFFSET):020d}{run}{event_type or 0}"
