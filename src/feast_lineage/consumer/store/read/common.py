"""The repository's read side: typed SQLAlchemy queries for the API.

Every function takes ``ns_ids``, the namespace ids the caller may see
(``None``: all of them), and never returns a row outside them. Each thing
read has its module beside this one; this one holds what they share.

Reads return typed records (frozen dataclasses, or NamedTuples a row maps
straight onto), each made from its rows in one place: the module that reads
the thing. Stored JSON comes back as :data:`JsonObject` (decoded) or as the
stored text (``str``), never as ``Any``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from functools import lru_cache
from typing import Literal, TypeVar, cast, overload

import orjson
from pydantic import JsonValue
from sqlalchemy import (
    ColumnElement,
    Connection,
    FromClause,
    Select,
    Table,
    bindparam,
    case,
    false,
    func,
    null,
    select,
)

from feast_lineage.consumer.store.schema import tables as t

NsIds = frozenset[int] | None
# A stored JSON object (a facet's payload), decoded.
JsonObject = dict[str, JsonValue]

# On PostgreSQL ids are taken before commit: rows this far below the highest
# id may still be committing when a position index is built.
_ID_MARGIN = 50_000

# An id column's values: integer ids, or text ids (run ids, event keys).
Id = TypeVar("Id", int, str)

# The most values an ``IN`` list of one statement holds (well under every database's limit
# of bound parameters).
CHUNK = 2000


def chunks(keys: Iterable[Id], size: int = CHUNK) -> Iterator[list[Id]]:
    """``keys`` sorted and without repeats, in lists of at most ``size``: an ``IN`` list each."""
    wanted = sorted(set(keys))
    for start in range(0, len(wanted), size):
        yield wanted[start : start + size]


def in_ids(column: ColumnElement[Id], ids: Collection[Id] | None) -> ColumnElement[bool] | None:
    """``column IN ids``, None for "no limit", always false for an empty set."""
    if ids is None:
        return None
    if not ids:
        return false()
    return column.in_(sorted(ids))


def where_all(*conditions: ColumnElement[bool] | None) -> tuple[ColumnElement[bool], ...]:
    return tuple(c for c in conditions if c is not None)


def count(conn: Connection, table: FromClause, *where: ColumnElement[bool]) -> int:
    return int(conn.execute(select(func.count()).select_from(table).where(*where)).scalar_one())


def written(datasets: FromClause) -> ColumnElement[bool]:
    """Whether a dataset of ``datasets`` (the table or an alias) was ever written or declared.

    Its producer rank says so: a write's (an output, or a DatasetEvent's
    dataset) starts with ``1``, a read's with ``0`` (``store/write/producer_rank.py``);
    a dataset stored before migration 0011 recomputed it from its events.
    """
    return datasets.c.producer_rank.like("1%")


def seen_by(
    value: ColumnElement[Id], visible: ColumnElement[bool] | None
) -> ColumnElement[Id | None]:
    """``value`` where ``visible`` holds (``None``: everywhere), else null.

    For what an event of another namespace than the row's may have set (a
    dataset's producer and update time: ``producer_ns_id``, ``updated_ns_id``),
    ``visible`` tests that namespace against the caller's; a row that does not
    know it (null, stored before migration 0029) fails the test: null, as a
    hidden one.
    """
    if visible is None:
        return cast("ColumnElement[Id | None]", value)
    return case((visible, value), else_=null())


def dataset_producer(datasets: FromClause, visible: NsIds) -> ColumnElement[str | None]:
    """A dataset's producer, null where the caller may not see whose event set it."""
    c = datasets.c
    return seen_by(c.producer, in_ids(c.producer_ns_id, visible))


def dataset_updated(datasets: FromClause, visible: NsIds) -> ColumnElement[int | None]:
    """A dataset's update time, null where the caller may not see whose event set it."""
    c = datasets.c
    return seen_by(c.updated_us, in_ids(c.updated_ns_id, visible))


# --- facets --------------------------------------------------------------------


@lru_cache(maxsize=8)
def _facets_statement(table: Table) -> Select[int, str, str]:
    c, b = table.c, t.facet_blobs.c
    stmt: Select[int, str, str] = (
        select(c.owner_id, c.name, b.payload)
        .join(t.facet_blobs, b.id == c.blob_id)
        .where(c.owner_id.in_(bindparam("owners", expanding=True)))
    )
    return stmt


def _stored_facets(
    conn: Connection, table: Table, owners: Iterable[int]
) -> dict[int, dict[str, str]]:
    wanted = sorted(set(owners))
    out: dict[int, dict[str, str]] = {}
    stmt = _facets_statement(table)
    for start in range(0, len(wanted), 2000):
        for owner, name, payload in conn.execute(stmt, {"owners": wanted[start : start + 2000]}):
            out.setdefault(owner, {})[name] = payload
    return out


@overload
def facets_of(
    conn: Connection, table: Table, owners: Iterable[int], *, raw: Literal[True]
) -> dict[int, dict[str, str]]: ...


@overload
def facets_of(
    conn: Connection, table: Table, owners: Iterable[int], *, raw: Literal[False] = False
) -> dict[int, dict[str, JsonObject]]: ...


def facets_of(
    conn: Connection, table: Table, owners: Iterable[int], *, raw: bool = False
) -> dict[int, dict[str, str]] | dict[int, dict[str, JsonObject]]:
    """Owner id -> {facet name: payload} for many owners, one query per 2000 owners.

    ``raw``: payloads as the stored JSON text, not decoded.
    """
    stored = _stored_facets(conn, table, owners)
    if raw:
        return stored
    return {owner: _decoded(facets) for owner, facets in stored.items()}


def _decoded(facets: dict[str, str]) -> dict[str, JsonObject]:
    out: dict[str, JsonObject] = {}
    for name, payload in facets.items():
        out[name] = orjson.loads(payload)  # ingest stores facets that are JSON objects only
    return out
