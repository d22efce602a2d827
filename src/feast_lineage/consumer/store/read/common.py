"""The repository's read side: typed SQLAlchemy queries for the API.

Every function takes ``ns_ids``, the namespace ids the caller may see
(``None``: all of them), and never returns a row outside them. Each thing
read has its module beside this one; this one holds what they share.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Any

import orjson
from sqlalchemy import (
    ColumnElement,
    Connection,
    bindparam,
    false,
    func,
    select,
)

from feast_lineage.consumer.store.schema import tables as t

NsIds = frozenset[int] | None

# On PostgreSQL ids are taken before commit: rows this far below the highest
# id may still be committing when a position index is built.
_ID_MARGIN = 50_000


def in_ids(column: Any, ids: Collection[Any] | None) -> ColumnElement[bool] | None:
    """``column IN ids``, None for "no limit", always false for an empty set."""
    if ids is None:
        return None
    if not ids:
        return false()
    return column.in_(sorted(ids))  # type: ignore[no-any-return]


def where_all(*conditions: ColumnElement[bool] | None) -> tuple[ColumnElement[bool], ...]:
    return tuple(c for c in conditions if c is not None)


def count(conn: Connection, table: Any, *where: ColumnElement[bool]) -> int:
    return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


# --- facets --------------------------------------------------------------------


def load_facets(conn: Connection, table: Any, owner: Any) -> dict[str, Any]:
    return facets_of(conn, table, [owner]).get(owner, {})


@lru_cache(maxsize=8)
def _facets_statement(table: Any) -> Any:
    return (
        select(table.c.owner_id, table.c.name, t.facet_blobs.c.payload)
        .join(t.facet_blobs, t.facet_blobs.c.id == table.c.blob_id)
        .where(table.c.owner_id.in_(bindparam("owners", expanding=True)))
    )


def facets_of(
    conn: Connection, table: Any, owners: Iterable[Any], *, raw: bool = False
) -> dict[Any, dict[str, Any]]:
    """Owner -> {facet name: payload} for many owners, one query per 2000 owners.

    ``raw``: payloads as the stored JSON text, not decoded.
    """
    wanted = sorted(set(owners))
    out: dict[Any, dict[str, Any]] = {}
    stmt = _facets_statement(table)
    for start in range(0, len(wanted), 2000):
        rows = conn.execute(stmt, {"owners": wanted[start : start + 2000]}).all()
        for owner, name, payload in rows:
            out.setdefault(owner, {})[name] = payload if raw else orjson.loads(payload)
    return out
