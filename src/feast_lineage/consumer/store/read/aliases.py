"""Aliases: current symlinks, the two steps every walk takes across them, and alias groups.

Symlinked datasets are one dataset: the node walk (:mod:`.graph`), the
field walk (:mod:`.column_walk`) and :func:`alias_groups` all cross a
current symlink with the same two steps (:func:`alias_steps`), from a
dataset to its alias and from an alias to the dataset that lists it, at
the same level, never onto a hidden dataset. :func:`name_facts` reads what
picks the name a group is shown by.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache
from typing import NamedTuple

from sqlalchemy import (
    CTE,
    BindParameter,
    ColumnElement,
    CompoundSelect,
    Connection,
    FromClause,
    Integer,
    Select,
    bindparam,
    case,
    cast,
    exists,
    func,
    literal,
    or_,
    select,
    union,
)

from feast_lineage.consumer.store.read.common import NsIds, written
from feast_lineage.consumer.store.read.walk import Step, recursive_walk
from feast_lineage.consumer.store.schema import tables as t

_CHUNK = 2000


def current_symlink(links: FromClause) -> ColumnElement[bool]:
    """Whether a symlink of ``links`` (the symlinks table or an alias) is current.

    A link from a SymlinksDatasetFacet is, unless the dataset's latest
    symlinks facet is a payload whose aliases were recorded and it does not
    list this one (aliases stored before migration 0005 stay current until
    the facet changes). A link between equal dataSource URIs is while the
    two datasets' URIs (or one's URI and the other's identity) are equal.
    A few primary key lookups a link.
    """
    s = links.c
    f = t.dataset_facets.alias("link_facet")
    listed = t.symlink_listings.alias("link_listed")
    marked = t.symlink_listings.alias("link_marked")
    recorded = (
        exists()
        .where(marked.c.blob_id == f.c.blob_id, marked.c.alias_id == t.LISTED)
        .correlate_except(marked)
    )
    lists_it = (
        exists()
        .where(listed.c.blob_id == f.c.blob_id, listed.c.alias_id == s.alias_id)
        .correlate_except(listed)
    )
    dropped = (
        exists()
        .where(f.c.owner_id == s.dataset_id, f.c.name == "symlinks", recorded, ~lists_it)
        .correlate_except(f)
    )
    return case((s.source == "datasource", same_uri(links)), else_=~dropped)


def same_uri(links: FromClause) -> ColumnElement[bool]:
    """Whether a dataSource link's two datasets' URIs (or URI and identity) are equal."""
    s = links.c
    owner = t.datasets.alias("link_owner")
    alias = t.datasets.alias("link_alias")
    return (
        exists()
        .where(
            owner.c.id == s.dataset_id,
            alias.c.id == s.alias_id,
            owner.c.uri_id.is_not(None),
            or_(owner.c.uri_id == alias.c.uri_id, owner.c.uri_id == alias.c.identity_uri_id),
        )
        .correlate_except(owner, alias)
    )


def _ns_ids() -> BindParameter[list[int]]:
    return bindparam("ns_ids", expanding=True)


Place = Callable[[ColumnElement[object]], tuple[ColumnElement[object], ...]]


LinkFilter = Callable[[FromClause], ColumnElement[bool]]
# Whether a dataset of the datasets table (or an alias) had been written (:func:`name_facts`).
WriteFilter = Callable[[FromClause], ColumnElement[bool]]


def alias_steps(
    node: ColumnElement[object], place: Place, scoped: bool, current: LinkFilter = current_symlink
) -> tuple[Step, Step]:
    """The two same-level steps from the dataset ``node`` of a walk across current symlinks.

    To its alias, and to the dataset whose symlinks name it; ``place`` puts
    the dataset reached among the walk's node columns (the others carried
    over: a field stays the same field). Scoped (an ``ns_ids`` parameter),
    never onto a hidden dataset: the walk's own node is visible already.
    ``current`` says which links count (:func:`.aliases_as_of.symlink_at`: at an instant).
    """
    s1 = t.dataset_symlinks.alias("s1")
    s2 = t.dataset_symlinks.alias("s2")
    to_alias: ColumnElement[bool] = (s1.c.dataset_id == node) & current(s1)
    to_owner: ColumnElement[bool] = (s2.c.alias_id == node) & current(s2)
    if scoped:
        d2 = t.datasets.alias("d2")
        to_alias = to_alias & s1.c.alias_ns_id.in_(_ns_ids())
        owner_visible = exists().where(d2.c.id == s2.c.dataset_id, d2.c.ns_id.in_(_ns_ids()))
        to_owner = to_owner & owner_visible
    return (
        Step(s1, to_alias, place(s1.c.alias_id), s1.c.alias_id, deeper=False),
        Step(s2, to_owner, place(s2.c.dataset_id), s2.c.dataset_id, deeper=False),
    )


@lru_cache(maxsize=4)
def _groups_statement(scoped: bool, current: LinkFilter) -> Select[int, int]:
    d, s = t.datasets.c, t.dataset_symlinks.c
    ids: BindParameter[list[int]] = bindparam("ids", expanding=True)
    zero = cast(literal(0), Integer).label("depth")
    stored = select(d.id.label("seed"), d.id.label("ds"), zero).where(d.id.in_(ids))
    named = select(s.alias_id, s.alias_id, zero).where(s.alias_id.in_(ids))
    if scoped:
        stored = stored.where(d.ns_id.in_(_ns_ids()))
        named = named.where(s.alias_ns_id.in_(_ns_ids()))
    seed = select(union(stored, named).subquery("seeds"))
    walked: CTE = recursive_walk(
        "alias_walk",
        seed,
        lambda w: alias_steps(w.c.ds, lambda far: (w.c.seed, far), scoped, current),
    )
    return select(walked.c.seed, walked.c.ds).distinct()


@lru_cache(maxsize=1)
def _linked_statement() -> CompoundSelect[int]:
    s = t.dataset_symlinks.c
    ids: BindParameter[list[int]] = bindparam("ids", expanding=True)
    return union(
        select(s.dataset_id).where(s.dataset_id.in_(ids)),
        select(s.alias_id).where(s.alias_id.in_(ids)),
    )


def _linked(conn: Connection, ids: list[int]) -> list[int]:
    """The datasets among ``ids`` at either end of a stored symlink (current or not)."""
    out: set[int] = set()
    for start in range(0, len(ids), _CHUNK):
        rows = conn.execute(_linked_statement(), {"ids": ids[start : start + _CHUNK]})
        out.update(int(i) for i in rows.scalars())
    return sorted(out)


class AliasGroups(NamedTuple):
    group: dict[int, int]  # dataset -> its group: the least id of its aliases and itself
    members: dict[int, frozenset[int]]  # group -> its datasets


def alias_groups(
    conn: Connection,
    ids: Iterable[int],
    ns_ids: NsIds,
    current: LinkFilter = current_symlink,
    params: Mapping[str, object] | None = None,
) -> AliasGroups:
    """The alias groups of ``ids``: each with every dataset its visible current symlinks reach.

    A lookup of which datasets have symlinks at all, then one recursive
    query per 2,000 of those. A hidden dataset, or one without symlinks, is
    a group of its own. ``current`` (with ``params``) says which links count.
    """
    wanted = sorted(set(ids))
    reach: dict[int, set[int]] = {i: {i} for i in wanted}
    # Most datasets have no symlink: only those on a link start the walk.
    linked = _linked(conn, wanted) if ns_ids is None or ns_ids else []
    stmt = _groups_statement(ns_ids is not None, current)
    scope = {**(params or {}), **({} if ns_ids is None else {"ns_ids": sorted(ns_ids)})}
    for start in range(0, len(linked), _CHUNK):
        params = {"ids": linked[start : start + _CHUNK], **scope}
        for seed, ds in conn.execute(stmt, params):
            reach[int(seed)].add(int(ds))
    group: dict[int, int] = {}
    members: dict[int, frozenset[int]] = {}
    for found in reach.values():
        first = min(found)
        if first not in members:
            members[first] = frozenset(found)
            group.update(dict.fromkeys(found, first))
    return AliasGroups(group, members)


def alias_names(conn: Connection, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
    """(namespace, name) of the aliases among ``ids``, as the symlinks that list them name them."""
    s = t.dataset_symlinks.c
    out: dict[int, tuple[str, str]] = {}
    ordered = sorted(set(ids))
    for start in range(0, len(ordered), _CHUNK):
        stmt = select(s.alias_id, s.alias_namespace, s.alias_name).where(
            s.alias_id.in_(ordered[start : start + _CHUNK])
        )
        out.update({int(i): (ns, name) for i, ns, name in conn.execute(stmt)})
    return out


class NameFacts(NamedTuple):
    """What ranks a dataset's name among its alias group's (see :func:`name_facts`)."""

    feast: bool  # a Feast object: a stored dataset with a Feast type
    table: bool  # a table's name, not a location's
    written: bool  # a stored dataset some event wrote or declared (as of an instant: by then)


# The symlink types that tell a table from its location (SymlinksDatasetFacet ``type``).
_TABLE, _LOCATION = "TABLE", "LOCATION"


def name_facts(
    conn: Connection,
    ids: Iterable[int],
    current: LinkFilter = current_symlink,
    params: Mapping[str, object] | None = None,
    *,
    wrote: WriteFilter = written,
) -> dict[int, NameFacts]:
    """What ranks each dataset of ``ids`` (alias group members, all visible) as its group's name.

    A table's name is one a current ``TABLE`` identifier among ``ids`` names
    (Spark naming a path's table), or a dataset whose own current ``LOCATION``
    identifier names its files (Hive naming a table). Only links between two
    of ``ids`` count, so nothing outside the groups (nothing hidden) ranks
    them. ``current`` (with ``params``) says which links count, as for
    :func:`alias_groups`, and ``wrote`` (with ``params`` too) which datasets
    had been written: now, or by an instant (:func:`.writes_as_of.written_at`).
    One lookup of the stored datasets and one of their symlinks per 2,000.
    """
    d, s = t.datasets.c, t.dataset_symlinks.c
    members = set(ids)
    wanted = sorted(members)
    stored: dict[int, tuple[bool, bool]] = {}
    tables: set[int] = set()
    kinds = func.upper(s.alias_type)
    bound = dict(params or {})
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        rows = select(d.id, d.feast_type.is_not(None), wrote(t.datasets)).where(d.id.in_(chunk))
        stored.update({int(i): (bool(f), bool(w)) for i, f, w in conn.execute(rows, bound)})
        links = select(s.dataset_id, s.alias_id, kinds).where(
            s.dataset_id.in_(chunk),
            s.source == "symlink",
            kinds.in_((_TABLE, _LOCATION)),
            current(t.dataset_symlinks),
        )
        for owner, alias, kind in conn.execute(links, bound):
            if int(alias) in members:
                tables.add(int(alias) if kind == _TABLE else int(owner))
    out: dict[int, NameFacts] = {}
    for i in wanted:
        feast, was_written = stored.get(i, (False, False))
        out[i] = NameFacts(feast, i in tables, was_written)
    return out
