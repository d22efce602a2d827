"""Who produced a dataset: the rank that picks it, whatever order events arrive in.

A dataset's ``producer`` is the producer of the latest event that wrote it
(listed it as an output) or declared it (a DatasetEvent); a dataset that was
only ever read keeps the producer of the first event that mentioned it. A read
never changes who produced a dataset.

Both cases fold into one string compared as "the highest wins", like every
other merge of the store: a write's key is ``"1"`` then the event's rank (the
latest write is highest); a read's is ``"0"`` then the event's rank with each
character flipped (the earliest read is highest). Any write outranks any read.
"""

from __future__ import annotations

WRITE = "1"
READ = "0"

# Ranks are decimal digits then hex digits; this reverses their order.
_FLIP = str.maketrans("0123456789abcdef", "fedcba9876543210")


def producer_rank(rank: str, *, writes: bool) -> str:
    """The producer key of an event of ``rank`` that wrote (or declared) or read a dataset."""
    return WRITE + rank if writes else READ + rank.translate(_FLIP)


def event_rank(key: str) -> str:
    """The rank of the event a producer key was made of (:func:`producer_rank`'s inverse)."""
    return key[1:] if key.startswith(WRITE) else key[1:].translate(_FLIP)  # the flip undoes itself
