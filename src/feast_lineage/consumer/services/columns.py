"""Column lineage of a dataset: the field-level walk, upstream and downstream.

A node is a field of a dataset: (dataset, field), or (dataset, whole) for
the output of dataset-level inputs. Symlinked aliases are one dataset, so
field *f* of A and field *f* of its alias B are one node, named after the
asked dataset when it is one of them, else after the first of them by
(namespace, name), with the others listed as ``aliases``.

The walk is one recursive query per direction
(:mod:`feast_lineage.consumer.store.read.column_walk`): the current edges into
(upstream) or out of (downstream) the fields reached so far, level by
level, in the database; the service groups the datasets met by alias and
builds the answer. Going upstream from a field also takes the edges into the whole dataset
(its dataset-level inputs: filters, joins, grouping) unless INDIRECT edges
are left out. The walk never steps onto a field of a namespace the caller
may not see; a transformation description (free text, which may name
anything) is shown only when every input of its target field is visible.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import orjson
from sqlalchemy import Connection

from feast_lineage.column_lineage import WHOLE_DATASET, field_hash
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.store.read import columns as c
from feast_lineage.consumer.store.read import graph as g
from feast_lineage.consumer.store.read.column_walk import walk_columns
from feast_lineage.identity import dataset_id

Direction = Literal["upstream", "downstream", "both"]
Way = Literal["upstream", "downstream"]
Node = tuple[int, int]  # (alias group, field hash)


@dataclass
class _Aliases:
    """Alias groups of the datasets met so far: dataset -> group, group -> members."""

    scope: Scope
    group: dict[int, int] = field(default_factory=dict)
    members: dict[int, set[int]] = field(default_factory=dict)
    names: dict[int, tuple[str, str]] = field(default_factory=dict)

    def add(self, conn: Connection, ids: Iterable[int]) -> None:
        """Put every dataset of ``ids`` (and its visible aliases, transitively) in a group.

        One round of symlink lookups per step of the links, for all the new datasets together.
        """
        todo = {i for i in ids if i not in self.group}
        links: list[tuple[int, int]] = []
        seen, frontier = set(todo), set(todo)
        while frontier:
            found: set[int] = set()
            for s in g.symlinks_touching(conn, frontier, self.scope.ns_ids):
                self.names.setdefault(s.dataset_id, (s.namespace, s.name))
                self.names.setdefault(s.alias_id, (s.alias_namespace, s.alias_name))
                links.append((s.dataset_id, s.alias_id))
                found.update((s.dataset_id, s.alias_id))
            frontier = found - seen
            seen |= found
        parent = {i: i for i in seen}

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b in links:
            ra, rb = root(a), root(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        components: dict[int, set[int]] = {}
        for i in seen:
            components.setdefault(root(i), set()).add(i)
        for component in components.values():
            first = min(component)
            for member in component:
                self.group[member] = first
            self.members[first] = component

    def datasets(self, groups: Iterable[int]) -> set[int]:
        out: set[int] = set()
        for grp in groups:
            out |= self.members[grp]
        return out


@dataclass
class _Found:
    depths: dict[Node, int] = field(default_factory=dict)
    fields: dict[Node, str | None] = field(default_factory=dict)
    edges: dict[tuple[Node, Node, int, str], list[c.ColumnEdgeRead]] = field(default_factory=dict)


def _walk(
    conn: Connection,
    aliases: _Aliases,
    start: int,
    field_name: str | None,
    way: Way,
    depth: int,
    indirect: bool,
    found: _Found,
) -> None:
    """The walk from ``start`` (one recursive query), its datasets grouped by alias."""
    field_id = field_hash(field_name) if field_name is not None else None
    walked = walk_columns(conn, start, field_id, way, depth, indirect, aliases.scope.ns_ids)
    aliases.add(conn, {i for w in walked for i in (w.edge.src_dataset_id, w.edge.dst_dataset_id)})
    if field_id is not None:
        found.depths.setdefault((aliases.group[start], field_id), 0)
        found.fields.setdefault((aliases.group[start], field_id), field_name)
    for r, level in walked:
        src = (aliases.group[r.src_dataset_id], r.src_field_id)
        dst = (aliases.group[r.dst_dataset_id], r.dst_field_id)
        near, far = (dst, src) if way == "upstream" else (src, dst)
        found.fields.setdefault(src, r.src_field)
        found.fields.setdefault(dst, r.dst_field)
        aliases.names.setdefault(r.src_dataset_id, (r.src_namespace, r.src_name))
        found.depths[near] = min(found.depths.get(near, level), level)
        found.depths[far] = min(found.depths.get(far, level + 1), level + 1)
        found.edges.setdefault((src, dst, r.job_id, r.origin), []).append(r)


def _node_id(namespace: str, name: str, field_name: str | None) -> str:
    if field_name is None:
        return f"dataset:{namespace}:{name}"
    return f"field:{namespace}:{name}:{field_name}"


def _types(conn: Connection, ids: Iterable[int]) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    for owner, payload in c.schema_payloads(conn, ids).items():
        schema = orjson.loads(payload)
        fields = schema.get("fields") if isinstance(schema, dict) else None
        types: dict[str, str] = {}
        for item in fields if isinstance(fields, list) else ():
            if isinstance(item, dict):
                name, kind = item.get("name"), item.get("type")
                if isinstance(name, str) and isinstance(kind, str):
                    types[name] = kind
        out[owner] = types
    return out


Json = dict[str, Any]

# An unknown field's error lists at most this many of the dataset's columns.
_LISTED_COLUMNS = 30


def _schema_fields(conn: Connection, ids: Iterable[int]) -> list[str] | None:
    """The field names of the datasets' schema facets (aliases together); None: no schema."""
    names: list[str] = []
    known = False
    for _owner, payload in sorted(c.schema_payloads(conn, ids).items()):
        schema = orjson.loads(payload)
        fields = schema.get("fields") if isinstance(schema, dict) else None
        if not isinstance(fields, list):
            continue
        known = True
        for item in fields:
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str) and name not in names:
                names.append(name)
    return names if known else None


def _require_field(conn: Connection, ids: Iterable[int], field_name: str, dataset: str) -> None:
    """Raise NotFound when the dataset's schema is known and lacks the field.

    Called only when no edge names the field: column lineage may name a
    field a stale schema facet does not list.
    """
    names = _schema_fields(conn, ids)
    if names is None or field_name in names:
        return
    listed = ", ".join(names[:_LISTED_COLUMNS])
    more = f" and {len(names) - _LISTED_COLUMNS} more" if len(names) > _LISTED_COLUMNS else ""
    its = f"its columns are {listed}{more}" if names else "its schema has no columns"
    raise NotFound(f"no column `{field_name}` in {dataset}; {its}")


def _transformations(
    rows: list[c.ColumnEdgeRead], shown: bool, parsed: dict[str, list[Json]]
) -> list[Json]:
    """The transformations of an edge's rows (its aliases' rows too), each once."""
    out: list[Json] = []
    for r in rows:
        items = parsed.get(r.transformations)
        if items is None:
            items = parsed[r.transformations] = [
                {
                    "type": x["type"],
                    "subtype": x.get("subtype"),
                    "description": x.get("description"),
                    "masking": x.get("masking"),
                }
                for x in orjson.loads(r.transformations)
            ]
        for item in items:
            x = item if shown or item["description"] is None else {**item, "description": None}
            if x not in out:
                out.append(x)
    return out


def column_lineage(
    read: StoreReader,
    *,
    namespace: str,
    name: str,
    field_name: str | None,
    direction: Direction,
    depth: int,
    indirect: bool,
    limit: int,
) -> Json:
    """The answer in the shape of :class:`~feast_lineage.consumer.schemas.ColumnLineage`.

    Built as plain JSON-ready dicts, as the graph's answers are (tests
    validate them against the model): a wide dataset's answer holds
    thousands of objects, and pydantic models of them cost more than the
    queries.
    """
    scope = read.scope
    start = dataset_id(namespace, name)
    with read.engine.connect() as conn:
        if not scope.allows(namespace) or (
            not c.dataset_names(conn, [start]) and not c.column_edges(conn, "from", [start], None)
        ):
            raise NotFound(
                f"no dataset named {name!r} in namespace {namespace!r}; "
                "list them with GET /api/v1/lineage/openlineage/datasets"
            )
        aliases = _Aliases(scope)
        aliases.names[start] = (namespace, name)
        aliases.add(conn, [start])
        group = aliases.group[start]
        found = _Found()
        for way in ("upstream", "downstream") if direction == "both" else (direction,):
            _walk(conn, aliases, start, field_name, way, depth, indirect, found)
        if field_name is not None and not found.edges:
            _require_field(conn, aliases.members[group], field_name, name)
        # Names of the datasets in reach: the stored ones, and every member of their groups.
        groups = {node[0] for node in found.depths}
        members = aliases.datasets(groups)
        for ds in c.dataset_names(conn, members - set(aliases.names)).values():
            aliases.names[ds.id] = (ds.namespace, ds.name)
        named = {grp: _representative(aliases, grp, start) for grp in groups}
        others = {grp: _aliases_of(aliases, grp, named[grp]) for grp in groups}
        # Where a field's type is looked up: the asked dataset first, then the other members.
        lookup = {grp: sorted(aliases.members[grp], key=lambda m: m != start) for grp in groups}
        types = _types(conn, members)
        depths, fields = found.depths, found.fields
        nearest = sorted(depths, key=lambda n: (depths[n], *named[n[0]], fields.get(n) or ""))
        kept = set(nearest[:limit])
        truncated = len(nearest) > limit
        nodes: list[Json] = []
        ids: dict[Node, str] = {}
        for node in nearest[:limit]:
            grp = node[0]
            ns, nm = named[grp]
            fname = fields.get(node)
            ids[node] = _node_id(ns, nm, fname)
            kind = None
            if fname is not None:
                for member in lookup[grp]:
                    kind = types.get(member, {}).get(fname)
                    if kind is not None:
                        break
            nodes.append(
                {
                    "id": ids[node],
                    "namespace": ns,
                    "name": nm,
                    "field": fname,
                    "type": kind,
                    "depth": depths[node],
                    "aliases": others[grp],
                }
            )
        kept_edges = {k: v for k, v in found.edges.items() if k[0] in kept and k[1] in kept}
        hidden = _with_hidden_inputs(conn, aliases, {k[1] for k in kept_edges}, scope)
        jobs = c.job_names(conn, {k[2] for k in kept_edges})
    edges: list[Json] = []
    feast: list[Json] = []
    parsed: dict[str, list[Json]] = {}
    for (src, dst, job, origin), rows in sorted(
        kept_edges.items(), key=lambda kv: (ids[kv[0][0]], ids[kv[0][1]], kv[0][2], kv[0][3])
    ):
        transformations = _transformations(rows, dst not in hidden, parsed)
        job_name = jobs.get(job)
        run_id = max((r.run_id for r in rows if r.run_id is not None), default=None)
        edges.append(
            {
                "source": ids[src],
                "target": ids[dst],
                "job": {"namespace": job_name[0], "name": job_name[1]} if job_name else None,
                "run_id": run_id,
                "origin": "declared" if origin == "declared" else "observed",
                "indirect": all(r.indirect for r in rows),
                "transformations": transformations,
            }
        )
        row_dir: Way | None = (
            "upstream" if dst[0] == group else "downstream" if src[0] == group else None
        )
        dst_field = fields.get(dst)
        if row_dir is None or dst_field is None:
            continue
        first = transformations[0] if transformations else None
        feast.append(
            {
                "dataset_namespace": named[dst[0]][0],
                "dataset_name": named[dst[0]][1],
                "output_field": dst_field,
                "input_namespace": named[src[0]][0],
                "input_name": named[src[0]][1],
                "input_field": fields.get(src) or "",
                "transformation_type": first["type"] if first else None,
                "transformation_description": first["description"] if first else None,
                "transformations_json": orjson.dumps(
                    [{k: v for k, v in x.items() if v is not None} for x in transformations]
                ).decode(),
                "run_id": run_id,
                "updated_at": max(r.created_us for r in rows) // 1000,
                "direction": row_dir,
            }
        )
    return {
        "dataset": {"namespace": namespace, "name": name},
        "field": field_name,
        "depth": depth,
        "direction": direction,
        "indirect": indirect,
        "nodes": nodes,
        "edges": edges,
        "truncated": truncated,
        "limit": limit,
        "column_lineage": feast,
    }


def _aliases_of(aliases: _Aliases, group: int, named: tuple[str, str]) -> list[Json]:
    """The group's other members by name: what a node of it lists as ``aliases``."""
    known = {aliases.names[m] for m in aliases.members[group] if m in aliases.names}
    return [{"namespace": ns, "name": nm} for ns, nm in sorted(known - {named})]


def _representative(aliases: _Aliases, group: int, start: int) -> tuple[str, str]:
    members = aliases.members[group]
    if start in members:
        return aliases.names[start]
    known = sorted(aliases.names[m] for m in members if m in aliases.names)
    return known[0] if known else ("", "")


def _with_hidden_inputs(
    conn: Connection, aliases: _Aliases, targets: set[Node], scope: Scope
) -> set[Node]:
    """The target fields among ``targets`` that have an input the caller may not see.

    A dataset-level input (a filter, a join) is an input of every field of
    its dataset: a hidden one withholds the descriptions of them all.
    """
    if scope.is_everything or not targets:
        return set()
    rows = c.column_edges(
        conn,
        "into",
        aliases.datasets({grp for grp, _f in targets}),
        {fid for _g, fid in targets} | {WHOLE_DATASET},
    )
    hidden: set[Node] = set()
    for r in rows:
        if not scope.allows_id(r.src_ns_id):
            hidden.add((aliases.group.get(r.dst_dataset_id, r.dst_dataset_id), r.dst_field_id))
    whole = {grp for grp, fid in hidden if fid == WHOLE_DATASET}
    return {node for node in targets if node in hidden or node[0] in whole}


def has_column_lineage(conn: Connection, dataset_ids: Iterable[int], scope: Scope) -> set[int]:
    """The datasets among ``dataset_ids`` with column lineage the caller may see.

    A dataset has it when it has current column edges itself, or when one of
    its aliases (through any chain of visible symlinks, as the walk goes)
    does: its fields are the alias's fields.
    """
    ids = set(dataset_ids)
    found = c.with_column_lineage(conn, ids, scope.ns_ids)
    rest = ids - found
    if not rest:
        return found
    aliases = _Aliases(scope)
    aliases.add(conn, rest)
    groups = {aliases.group[i] for i in rest}
    others = aliases.datasets(groups) - ids
    with_edges = found | c.with_column_lineage(conn, others, scope.ns_ids)
    lit = {grp for grp in groups if aliases.members[grp] & with_edges}
    return found | {i for i in rest if aliases.group[i] in lit}
