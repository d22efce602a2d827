"""Whose turn it is to prune: claims every worker and server of one store share."""

from __future__ import annotations

from sqlalchemy import Engine

from feast_lineage.consumer.store.engine.meta import read_meta, write_meta
from feast_lineage.consumer.store.engine.transactions import write_transaction

# Keys of the meta table that retention keeps, shared by every process.
PRUNE_CLAIM_KEY = "prune_claimed_us"
LAST_PRUNE_KEY = "last_prune"


def claim_prune(engine: Engine, now_us: int, min_gap_us: int) -> bool:
    """Whether this process should run the scheduled prune due at ``now_us``.

    Every worker of a server (and every server on one store) runs the
    retention schedule; the first to claim it within ``min_gap_us`` prunes
    and the others skip. Claims are write transactions, so they take turns.
    """
    with write_transaction(engine) as conn:
        claimed = read_meta(conn, PRUNE_CLAIM_KEY)
        if claimed is not None and now_us - int(claimed) < min_gap_us:
            return False
        write_meta(conn, PRUNE_CLAIM_KEY, str(now_us))
        return True


def last_prune_claim(engine: Engine) -> int | None:
    """When the last scheduled prune was claimed (µs), by any process."""
    with engine.connect() as conn:
        claimed = read_meta(conn, PRUNE_CLAIM_KEY)
    return int(claimed) if claimed is not None else None
