"""FROZEN at migration 0011: never change this module.

Who produced a dataset, as a rank where the highest wins: a write's key is
``"1"`` then the event's rank (the latest write wins), a read's ``"0"`` then
the event's rank with each character flipped (the earliest read wins); any
write outranks any read. Copied from ``consumer/store/write/producer_rank.py`` as
it was when migration 0011 was written: the keys are stored in
``feast_lineage_datasets.producer_rank`` and later writes compare against
them. Why frozen, and why ``duplicates`` lists this beside its source: see
``frozen/__init__.py``.
"""

from __future__ import annotations

WRITE = "1"
READ = "0"

# Ranks are decimal digits then hex digits; this reverses their order.
_FLIP = str.maketrans("0123456789abcdef", "fedcba9876543210")


def producer_rank(rank: str, *, writes: bool) -> str:
    """The producer key of an event of ``rank`` that wrote (or declared) or read a dataset."""
    return WRITE + rank if writes else READ + rank.translate(_FLIP)


def outranks(new: str | None, old: str | None) -> bool:
    """Whether ``new`` picks the producer over ``old`` (no key yet loses to any)."""
    return new is not None and (old is None or new > old)
