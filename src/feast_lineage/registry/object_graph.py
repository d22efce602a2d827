"""The registry lineage graph: Feast objects as nodes, "built from" as edges.

A node's id is ``<project>:<group>:<name>`` (``demo:feature_view:driver_stats``),
so ids are the same in every process and every request. An edge goes from
the object something is built from to that object (data source -> view,
view -> service), following :func:`~feast_lineage.registry.relations.upstream`.
A reference to an object the registry does not hold (a service naming a
deleted view) gets a node marked ``missing``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from feast_lineage.registry.objects import Kind, ProjectObjects, Ref, kind_of
from feast_lineage.registry.relations import upstream


@dataclass
class Node:
    id: str
    type: str
    name: str
    project: str
    missing: bool = False
    object: dict[str, Any] | None = None


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    source_type: str
    target_type: str


@dataclass
class Graph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)

    def extend(self, other: Graph) -> None:
        self.nodes.update(other.nodes)
        self.edges.extend(other.edges)


def node_id(project: str, ref: Ref) -> str:
    return f"{project}:{ref.group}:{ref.name}"


def object_metadata(obj: Any) -> dict[str, Any]:
    """The object's full definition as JSON (its protobuf, snake_case field names).

    Pickled transformation bodies are left out; their source text stays.
    """
    from google.protobuf.json_format import MessageToDict  # type: ignore[import-untyped]

    data: dict[str, Any] = MessageToDict(obj.to_proto(), preserving_proto_field_name=True)
    _drop_pickles(data)
    return data


def _drop_pickles(value: Any) -> None:
    if isinstance(value, dict):
        if "body" in value and "body_text" in value:
            del value["body"]
        for item in value.values():
            _drop_pickles(item)
    elif isinstance(value, list):
        for item in value:
            _drop_pickles(item)


def project_graph(objects: ProjectObjects, repo_path: Path | None, *, complete: bool) -> Graph:
    """The graph of one project; ``complete`` adds each object's definition."""
    graph = Graph()
    project = objects.project
    kinds: dict[Ref, Kind] = {}
    for ref, obj in objects.refs():
        kinds[ref] = kind_of(obj)
        graph.nodes[node_id(project, ref)] = Node(
            id=node_id(project, ref),
            type=kinds[ref],
            name=ref.name,
            project=project,
            object=object_metadata(obj) if complete else None,
        )
    for ref, obj in objects.refs():
        target = node_id(project, ref)
        for up in upstream(obj, objects, repo_path):
            source = node_id(project, up)
            if source not in graph.nodes:
                graph.nodes[source] = Node(
                    id=source, type=up.group, name=up.name, project=project, missing=True
                )
            graph.edges.append(
                Edge(
                    source=source,
                    target=target,
                    source_type=graph.nodes[source].type,
                    target_type=kinds[ref],
                )
            )
    return graph
