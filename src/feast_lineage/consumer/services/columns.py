"""Column lineage of a dataset: the field-level walk, upstream and downstream.

A node is a field of a dataset: (dataset, field), or (dataset, whole) for
the output of dataset-level inputs. Symlinked aliases are one dataset, so
field *f* of A and field *f* of its alias B are one node, named after the
asked dataset when it is one of them, else by :func:`_name_rank` (a Feast
object's name, then a table's over its location's, then one written over
one only read, then the first by (namespace, name)), with the others
listed as ``aliases``.

The walk is one recursive query per direction
(:mod:`feast_lineage.consumer.store.read.column_walk`): the current edges into
(upstream) or out of (downstream) the fields reached so far, level by
level, in the database; the datasets met are grouped by alias by another
recursive query over the same alias steps (:func:`.aliases.alias_groups`),
and the service builds the answer, a
:class:`~feast_lineage.consumer.schemas.ColumnLineage`. Going upstream from
a field also takes the edges into the whole dataset (its dataset-level
inputs: filters, joins, grouping) unless INDIRECT edges are left out. The
walk never steps onto a field of a namespace the caller may not see; a
transformation description (free text, which may name anything) is shown
only when every input of its target field is visible.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass, field

import orjson
from sqlalchemy import Connection

from feast_lineage.column_lineage import WHOLE_DATASET, field_hash
from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import NotFound
from feast_lineage.consumer.lineage_model import Direction, NodeId, Way, ways
from feast_lineage.consumer.schemas import (
    ColumnEdge,
    ColumnLineage,
    ColumnNode,
    ColumnTransformation,
    DatasetRef,
    FeastColumnLineageRow,
    JobRef,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.reader import StoreReader
from feast_lineage.consumer.services.when import When, answerable, echo
from feast_lineage.consumer.store.read import as_of as at_reads
from feast_lineage.consumer.store.read import columns as c
from feast_lineage.consumer.store.read import columns_as_of as c_at
from feast_lineage.consumer.store.read import columns_window as c_win
from feast_lineage.consumer.store.read import dataset_versions as dv
from feast_lineage.consumer.store.read.aliases import (
    LinkFilter,
    NameFacts,
    alias_groups,
    alias_names,
    current_symlink,
    name_facts,
)
from feast_lineage.consumer.store.read.aliases_as_of import symlink_at
from feast_lineage.consumer.store.read.as_of import Instant
from feast_lineage.consumer.store.read.column_walk import walk_columns
from feast_lineage.consumer.store.read.common import written
from feast_lineage.consumer.store.read.window import Window, symlinks_instant
from feast_lineage.consumer.store.read.writes_as_of import written_at
from feast_lineage.event_time import to_iso
from feast_lineage.identity import dataset_id

Node = tuple[int, int]  # (alias group, field hash)
Name = tuple[str, str]  # (namespace, name)


def _name_rank(facts: NameFacts, name: Name) -> tuple[bool, bool, bool, Name]:
    """The order of the names of an alias group, the one it is shown by first.

    A Feast object's name, then a table's over its location's (a ``TABLE``
    symlink names it, or it names its files by a ``LOCATION`` one), then one
    an event wrote (or declared) over one only read, then by (namespace,
    name). The UI names the groups it draws by the same rule (ui/src/graph/model.ts).
    """
    return (not facts.feast, not facts.table, not facts.written, name)


@dataclass
class _Aliases:
    """Alias groups of the datasets met so far: dataset -> group, group -> members.

    As of an instant (``at``) the symlinks current then group them; over a
    window, those current before its end.
    """

    scope: Scope
    at: When = None
    group: dict[int, int] = field(default_factory=dict)
    members: dict[int, frozenset[int]] = field(default_factory=dict)
    names: dict[int, Name] = field(default_factory=dict)
    facts: dict[int, NameFacts] = field(default_factory=dict)

    def _links(self) -> tuple[LinkFilter, Mapping[str, object]]:
        """Which symlinks count: current ones, or those current at the instant (window's end)."""
        if self.at is None:
            return current_symlink, {}
        then = self.at if isinstance(self.at, Instant) else symlinks_instant(self.at)
        return symlink_at, then.params()

    def add(self, conn: Connection, ids: Iterable[int]) -> None:
        """Put every dataset of ``ids`` (and its visible aliases, transitively) in a group."""
        todo = {i for i in ids if i not in self.group}
        if not todo:
            return
        current, params = self._links()
        found = alias_groups(conn, todo, self.scope.ns_ids, current, params)
        self.group.update(found.group)
        self.members.update(found.members)

    def datasets(self, groups: Iterable[int]) -> set[int]:
        out: set[int] = set()
        for grp in groups:
            out |= self.members[grp]
        return out

    def name(self, conn: Connection, ids: set[int]) -> None:
        """Learn the names of ``ids`` (stored datasets', else as a symlink names the alias)
        and what ranks them (:func:`_name_rank`)."""
        for ds in c.dataset_names(conn, ids - set(self.names)).values():
            self.names[ds.id] = (ds.namespace, ds.name)
        for alias, named in alias_names(conn, ids - set(self.names)).items():
            self.names[alias] = named
        # Only a group of several names needs them ranked.
        ranked = {i for i in ids - set(self.facts) if len(self.members[self.group[i]]) > 1}
        if ranked:
            current, params = self._links()
            # Written by the instant, as the graph's nodes then say (a window's are as stored).
            wrote = written_at if isinstance(self.at, Instant) else written
            self.facts.update(name_facts(conn, ranked, current, params, wrote=wrote))

    def representative(self, group: int, start: int) -> Name:
        """The name of a group's node: the asked dataset's, else the first by :func:`_name_rank`."""
        members = self.members[group]
        if start in members:
            return self.names[start]
        known = [m for m in members if m in self.names]
        if len(known) <= 1:
            return self.names[known[0]] if known else ("", "")
        best = min(known, key=lambda m: _name_rank(self.facts[m], self.names[m]))
        return self.names[best]

    def others(self, group: int, named: Name) -> list[DatasetRef]:
        """The group's other members by name: what a node of it lists as ``aliases``."""
        known = {self.names[m] for m in self.members[group] if m in self.names}
        return [DatasetRef(namespace=ns, name=nm) for ns, nm in sorted(known - {named})]


@dataclass
class _Found:
    depths: dict[Node, int] = field(default_factory=dict)
    fields: dict[Node, str | None] = field(default_factory=dict)
    edges: dict[tuple[Node, Node, int, str], list[c.ColumnEdgeRead]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Ask:
    """What a request asks for."""

    start: int
    field_name: str | None
    depth: int
    indirect: bool
    at: When = None


def _instant(at: When) -> Instant | None:
    """The instant whose schemas and datasets an answer shows: a window's are the stored ones."""
    return at if isinstance(at, Instant) else None


def _walk(conn: Connection, aliases: _Aliases, ask: _Ask, way: Way, found: _Found) -> None:
    """The walk from ``start`` (one recursive query), its datasets grouped by alias."""
    start, field_name = ask.start, ask.field_name
    field_id = field_hash(field_name) if field_name is not None else None
    ns_ids = aliases.scope.ns_ids
    walked = walk_columns(conn, start, field_id, way, ask.depth, ask.indirect, ns_ids, ask.at)
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


def _fields_of(payload: str) -> list[tuple[str, object]] | None:
    """(name, type) of each named field of a stored schema facet; None: it lists none."""
    schema = orjson.loads(payload)
    fields = schema.get("fields") if isinstance(schema, dict) else None
    if not isinstance(fields, list):
        return None
    return [
        (item["name"], item.get("type"))
        for item in fields
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]


def _schema_payloads(conn: Connection, ids: Iterable[int], at: Instant | None) -> dict[int, str]:
    """Dataset id -> its schema facet text: the latest, or that of its version current at ``at``."""
    if at is None:
        return c.schema_payloads(conn, ids)
    schemas = c_at.schema_ids_at(conn, ids, at)
    texts = dv.blob_texts(conn, schemas.values())
    return {owner: texts[blob] for owner, blob in schemas.items() if blob in texts}


def _types(conn: Connection, ids: Iterable[int], at: Instant | None) -> dict[int, dict[str, str]]:
    out: dict[int, dict[str, str]] = {}
    for owner, payload in _schema_payloads(conn, ids, at).items():
        fields = _fields_of(payload) or []
        out[owner] = {name: kind for name, kind in fields if isinstance(kind, str)}
    return out


# An unknown field's error lists at most this many of the dataset's columns.
_LISTED_COLUMNS = 30


def _schema_fields(conn: Connection, ids: Iterable[int], at: Instant | None) -> list[str] | None:
    """The field names of the datasets' schema facets (aliases together); None: no schema."""
    names: list[str] = []
    known = False
    for _owner, payload in sorted(_schema_payloads(conn, ids, at).items()):
        fields = _fields_of(payload)
        if fields is None:
            continue
        known = True
        for name, _kind in fields:
            if name not in names:
                names.append(name)
    return names if known else None


def _traceable(conn: Connection, aliases: _Aliases, ask: _Ask) -> list[str]:
    """The fields of the asked dataset that column lineage names, one step either way."""
    probe = _Ask(ask.start, None, 1, True, ask.at)
    found = _Found()
    for way in ways("both"):
        _walk(conn, aliases, probe, way, found)
    group = aliases.group[ask.start]
    return sorted({name for (g, _f), name in found.fields.items() if g == group and name})


def _names_field(found: _Found, node: Node) -> bool:
    """Whether an edge the walk found has the field ``node`` as an end: a dataset-level
    edge (a filter's or a join's input) reaches every field of its dataset, whatever the
    name asked, and does not make a name a column."""
    return any(node in (src, dst) for src, dst, _job, _origin in found.edges)


def _require_field(conn: Connection, aliases: _Aliases, ask: _Ask, dataset: str) -> None:
    """Raise NotFound when the dataset's schema is known and lacks the field.

    Called only when no edge found has the field as an end: column lineage may name a
    field a stale schema facet does not list (or one the schema leaves out,
    such as a feature view's entity key and timestamps), and such a field is
    a column all the same, traced the other way or deeper. The message lists
    the schema's columns, then those only column lineage names.
    """
    field_name = ask.field_name
    ids = aliases.members[aliases.group[ask.start]]
    names = _schema_fields(conn, ids, _instant(ask.at))
    if names is None or field_name in names:
        return
    traceable = _traceable(conn, aliases, ask)
    if field_name in traceable:
        return
    names += [name for name in traceable if name not in names]
    listed = ", ".join(names[:_LISTED_COLUMNS])
    more = f" and {len(names) - _LISTED_COLUMNS} more" if len(names) > _LISTED_COLUMNS else ""
    its = f"its columns are {listed}{more}" if names else "its schema has no columns"
    raise NotFound(f"no column `{field_name}` in {dataset}; {its}")


_Parsed = dict[str, list[ColumnTransformation]]


def _transformations(
    rows: list[c.ColumnEdgeRead], shown: bool, parsed: _Parsed
) -> list[ColumnTransformation]:
    """The transformations of an edge's rows (its aliases' rows too), each once."""
    out: list[ColumnTransformation] = []
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
            if not shown and item["description"] is not None:
                item = {
                    "type": item["type"],
                    "subtype": item["subtype"],
                    "description": None,
                    "masking": item["masking"],
                }
            if item not in out:
                out.append(item)
    return out


def _known(conn: Connection, start: int, at: When) -> bool:
    """Whether the dataset is stored (existed at ``at``) or some column edge reads it."""
    if at is None:
        return bool(c.dataset_names(conn, [start]) or c.column_edges(conn, "from", [start], None))
    if isinstance(at, Window):
        return _known(conn, start, None)
    return bool(
        at_reads.nodes_by_id(conn, [start], None, at)
        or c_at.column_edges_at(conn, "from", [start], None, at)
    )


def _start(conn: Connection, scope: Scope, namespace: str, name: str, at: When) -> _Aliases:
    """The asked dataset's alias group; NotFound when there is no such visible dataset."""
    start = dataset_id(namespace, name)
    if not scope.allows(namespace) or not _known(conn, start, at):
        then = f" at {to_iso(at.time_us)}" if isinstance(at, Instant) else ""
        raise NotFound(
            f"no dataset named {name!r} in namespace {namespace!r}{then}; {not_found.DATASETS}"
        )
    aliases = _Aliases(scope, at)
    aliases.names[start] = (namespace, name)
    aliases.add(conn, [start])
    return aliases


@dataclass(slots=True)
class _Answer:
    """The nodes kept (the nearest ``limit``), what names them, and the edges among them."""

    named: dict[int, Name]  # group -> the name its nodes carry
    ids: dict[Node, str] = field(default_factory=dict)  # kept node -> its id
    nodes: list[ColumnNode] = field(default_factory=list)
    truncated: bool = False


def _nodes(conn: Connection, aliases: _Aliases, found: _Found, start: int, limit: int) -> _Answer:
    """The nearest ``limit`` field nodes, each named after its group, typed where a schema says."""
    groups = {node[0] for node in found.depths}
    members = aliases.datasets(groups)
    aliases.name(conn, members)
    answer = _Answer({grp: aliases.representative(grp, start) for grp in groups})
    others = {grp: aliases.others(grp, answer.named[grp]) for grp in groups}
    # Where a field's type is looked up: the asked dataset first, then the other members.
    lookup = {grp: sorted(aliases.members[grp], key=lambda m: m != start) for grp in groups}
    types = _types(conn, members, _instant(aliases.at))
    depths, fields, named = found.depths, found.fields, answer.named
    nearest = sorted(depths, key=lambda n: (depths[n], *named[n[0]], fields.get(n) or ""))
    answer.truncated = len(nearest) > limit
    for node in nearest[:limit]:
        grp, fname = node[0], fields.get(node)
        ns, nm = named[grp]
        answer.ids[node] = str(NodeId.of_field(ns, nm, fname))
        kind = _type_of(types, lookup[grp], fname)
        answer.nodes.append(
            {
                "id": answer.ids[node],
                "namespace": ns,
                "name": nm,
                "field": fname,
                "type": kind,
                "depth": depths[node],
                "aliases": others[grp],
            }
        )
    return answer


def _type_of(types: dict[int, dict[str, str]], members: list[int], name: str | None) -> str | None:
    """A field's type: the first member's schema that gives one."""
    if name is None:
        return None
    for member in members:
        kind = types.get(member, {}).get(name)
        if kind is not None:
            return kind
    return None


_EdgeKey = tuple[Node, Node, int, str]


def _edges(
    answer: _Answer,
    kept: dict[_EdgeKey, list[c.ColumnEdgeRead]],
    hidden: set[Node],
    jobs: dict[int, tuple[str, str]],
    hidden_jobs: Set[int],
) -> list[tuple[_EdgeKey, ColumnEdge]]:
    """The edges among the kept nodes, sorted by their ends' ids.

    ``jobs``: the visible jobs' names; an edge a job of ``hidden_jobs`` stated names
    neither the job nor its run (it is still an edge between the caller's columns).
    """
    ids = answer.ids
    out: list[tuple[_EdgeKey, ColumnEdge]] = []
    parsed: _Parsed = {}
    for key, rows in sorted(
        kept.items(), key=lambda kv: (ids[kv[0][0]], ids[kv[0][1]], kv[0][2], kv[0][3])
    ):
        src, dst, job, origin = key
        job_name = jobs.get(job)
        edge: ColumnEdge = {
            "source": ids[src],
            "target": ids[dst],
            "job": JobRef(namespace=job_name[0], name=job_name[1]) if job_name else None,
            "run_id": None
            if job in hidden_jobs
            else max((r.run_id for r in rows if r.run_id is not None), default=None),
            "origin": "declared" if origin == "declared" else "observed",
            "indirect": all(r.indirect for r in rows),
            "transformations": _transformations(rows, dst not in hidden, parsed),
        }
        out.append((key, edge))
    return out


def _feast_row(
    answer: _Answer,
    key: _EdgeKey,
    edge: ColumnEdge,
    rows: list[c.ColumnEdgeRead],
    found: _Found,
    group: int,
    hidden_jobs: Set[int],
) -> FeastColumnLineageRow | None:
    """Feast 0.67's row of an edge into or out of the asked dataset (None for another edge).

    Its ``updated_at`` is the time of the latest event that stated it, which for an edge a
    job of ``hidden_jobs`` stated is a hidden event's: 0 (not known) to such a caller.
    """
    src, dst = key[0], key[1]
    way: Way | None = "upstream" if dst[0] == group else "downstream" if src[0] == group else None
    dst_field = found.fields.get(dst)
    if way is None or dst_field is None:
        return None
    transformations = edge["transformations"]
    first = transformations[0] if transformations else None
    named = answer.named
    return {
        "dataset_namespace": named[dst[0]][0],
        "dataset_name": named[dst[0]][1],
        "output_field": dst_field,
        "input_namespace": named[src[0]][0],
        "input_name": named[src[0]][1],
        "input_field": found.fields.get(src) or "",
        "transformation_type": first["type"] if first else None,
        "transformation_description": first["description"] if first else None,
        "transformations_json": orjson.dumps(
            [{k: v for k, v in x.items() if v is not None} for x in transformations]
        ).decode(),
        "run_id": edge["run_id"],
        "updated_at": 0 if key[2] in hidden_jobs else max(r.created_us for r in rows) // 1000,
        "direction": way,
    }


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
    at: When = None,
) -> ColumnLineage:
    """The column lineage of a dataset (or one of its fields) within ``depth`` steps.

    With ``at``: as it stood at that instant (docs/api.md, ``as_of``), or
    what the window's runs stated (``since``/``until``).
    """
    ask = _Ask(dataset_id(namespace, name), field_name, depth, indirect, at)
    with read.engine.connect() as conn:
        at = answerable(conn, at)
        ask = _Ask(ask.start, field_name, depth, indirect, at)
        aliases = _start(conn, read.scope, namespace, name, at)
        group = aliases.group[ask.start]
        found = _Found()
        for way in ways(direction):
            _walk(conn, aliases, ask, way, found)
        if field_name is not None and not _names_field(found, (group, field_hash(field_name))):
            _require_field(conn, aliases, ask, name)
        answer = _nodes(conn, aliases, found, ask.start, limit)
        kept = {k: v for k, v in found.edges.items() if k[0] in answer.ids and k[1] in answer.ids}
        hidden = _with_hidden_inputs(conn, aliases, {k[1] for k in kept}, read.scope)
        named = c.job_names(conn, {k[2] for k in kept})
        # A job of a namespace the caller may not see is named nowhere, nor is its run.
        jobs = {job: n for job, n in named.items() if read.scope.allows(n[0])}
        hidden_jobs = named.keys() - jobs.keys()
        edges = _edges(answer, kept, hidden, jobs, hidden_jobs)
    feast = [
        _feast_row(answer, key, edge, kept[key], found, group, hidden_jobs) for key, edge in edges
    ]
    as_of, since, until = echo(at)
    return ColumnLineage(
        dataset=DatasetRef(namespace=namespace, name=name),
        field=field_name,
        depth=depth,
        direction=direction,
        indirect=indirect,
        nodes=answer.nodes,
        edges=[edge for _key, edge in edges],
        truncated=answer.truncated,
        limit=limit,
        column_lineage=[row for row in feast if row is not None],
        as_of=as_of,
        since=since,
        until=until,
    )


def _with_hidden_inputs(
    conn: Connection, aliases: _Aliases, targets: set[Node], scope: Scope
) -> set[Node]:
    """The target fields among ``targets`` that have an input the caller may not see.

    A dataset-level input (a filter, a join) is an input of every field of
    its dataset: a hidden one withholds the descriptions of them all.
    """
    if scope.is_everything or not targets:
        return set()
    datasets = aliases.datasets({grp for grp, _f in targets})
    fields = {fid for _g, fid in targets} | {WHOLE_DATASET}
    if aliases.at is None:
        rows = c.column_edges(conn, "into", datasets, fields)
    elif isinstance(aliases.at, Window):
        rows = c_win.column_edges_in_window(conn, "into", datasets, fields, aliases.at)
    else:
        rows = c_at.column_edges_at(conn, "into", datasets, fields, aliases.at)
    hidden: set[Node] = set()
    for r in rows:
        if not scope.allows_id(r.src_ns_id):
            hidden.add((aliases.group.get(r.dst_dataset_id, r.dst_dataset_id), r.dst_field_id))
    whole = {grp for grp, fid in hidden if fid == WHOLE_DATASET}
    return {node for node in targets if node in hidden or node[0] in whole}


def has_column_lineage(
    conn: Connection, dataset_ids: Iterable[int], scope: Scope, at: Instant | None = None
) -> set[int]:
    """The datasets among ``dataset_ids`` with column lineage the caller may see (as of ``at``).

    A dataset has it when it has current column edges itself, or when one of
    its aliases (through any chain of visible symlinks, as the walk goes)
    does: its fields are the alias's fields. As of an instant, the column
    edges and the symlinks current then (what the column view answers then).
    """

    def with_edges_of(ids: set[int]) -> set[int]:
        if at is None:
            return c.with_column_lineage(conn, ids, scope.ns_ids)
        return c_at.with_column_lineage_at(conn, ids, scope.ns_ids, at)

    ids = set(dataset_ids)
    found = with_edges_of(ids)
    rest = ids - found
    if not rest:
        return found
    aliases = _Aliases(scope, at)
    aliases.add(conn, rest)
    groups = {aliases.group[i] for i in rest}
    others = aliases.datasets(groups) - ids
    with_edges = found | with_edges_of(others)
    lit = {grp for grp in groups if aliases.members[grp] & with_edges}
    return found | {i for i in rest if aliases.group[i] in lit}


def column_edges_of_datasets_at(
    read: StoreReader, datasets: Iterable[tuple[str, str]], at: Instant | None
) -> list[c.ColumnEdgeRead]:
    """The column edges into or out of these (namespace, name) datasets, as of ``at`` (None: now).

    Only edges whose two ends the caller may see, each once, sorted by
    (output dataset, output field, job, origin, input dataset, input field);
    symlinks are not followed. An instant before the retention horizon is a
    400 naming the oldest one answered.
    """
    scope = read.scope
    ids = {dataset_id(ns, nm) for ns, nm in datasets if scope.allows(ns)}
    if not ids:
        return []
    with read.engine.connect() as conn:
        if at is not None:
            answerable(conn, at)
        found: dict[tuple[object, ...], c.ColumnEdgeRead] = {}
        for side in ("into", "from"):
            if at is None:
                rows = c.column_edges(conn, side, ids, None)
            else:
                rows = c_at.column_edges_at(conn, side, ids, None, at)
            for r in rows:
                if scope.allows_id(r.src_ns_id) and scope.allows_id(r.dst_ns_id):
                    key = (r.dst_dataset_id, r.dst_field_id, r.job_id, r.origin)
                    found[(*key, r.src_dataset_id, r.src_field_id)] = r
    return [found[k] for k in sorted(found, key=str)]
