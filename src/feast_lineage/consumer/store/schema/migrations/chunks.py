"""How many events a data migration reads, and rows it writes, per statement.

1,000 unless the Alembic config's ``attributes["migration_chunk"]`` says
otherwise: tests make it small, so that a few events cross chunk
boundaries the way a large store does.
"""

from __future__ import annotations

from alembic import op

CHUNK = 1000
ATTRIBUTE = "migration_chunk"


def chunk_size() -> int:
    config = op.get_context().config
    value = config.attributes.get(ATTRIBUTE) if config is not None else None
    return value if isinstance(value, int) and value > 0 else CHUNK
