"""Registry lineage: the Feast-only lineage, built from the registry itself.

The registry comes from :class:`~feast_lineage.registry.source.RegistrySource`
(feature_store.yaml, Feast's own FeatureStore, opened on first use). Every request
reads the registry afresh (no cache), turns the objects into a graph with
:mod:`feast_lineage.registry.object_graph`, and keeps only the projects the caller
may see: a project is visible when its own OpenLineage namespace is.
"""

from __future__ import annotations

from feast_lineage.consumer.access.scope import Scope
from feast_lineage.consumer.errors import Forbidden, LineageError, NotFound
from feast_lineage.consumer.schemas import (
    RegistryEdge,
    RegistryLineage,
    RegistryNode,
    RegistryObject,
)
from feast_lineage.consumer.services import not_found
from feast_lineage.consumer.services.reader import RegistryReader
from feast_lineage.registry.object_graph import Graph, Node, node_id, object_metadata, project_graph
from feast_lineage.registry.objects import (
    GROUP_OF_KIND,
    Group,
    Ref,
    kind_of,
)

OBJECT_TYPES = tuple(GROUP_OF_KIND)
# The object types of Feast's own registry REST API, which names them in
# camelCase; there a feature view is any kind of feature view.
FEAST_TYPE_GROUPS: dict[str, Group] = {
    "entity": "entity",
    "dataSource": "data_source",
    "featureView": "feature_view",
    "featureService": "feature_service",
    "savedDataset": "saved_dataset",
}
_GROUP_OF_TYPE: dict[str, Group] = {
    **{str(kind): group for kind, group in GROUP_OF_KIND.items()},
    **FEAST_TYPE_GROUPS,
}


def _visible(producer_namespace: str, scope: Scope, project: str) -> bool:
    return scope.sees_project(project, producer_namespace)


def _project(read: RegistryReader, project: str | None) -> str:
    """The project asked for (default: the repository's), visible and known.

    Visibility comes first, so a project the caller may not see is refused
    the same whether or not it exists. The repository's own project is
    known even before anything is applied to it (its graph is empty). A
    default the caller may not see is refused without its name: only the
    caller who asked for a project by name hears it again.
    """
    source, scope, producer_namespace = read.source, read.scope, read.producer_namespace
    source.require_repository()
    name = project or source.project
    if not name:
        raise LineageError("pass ?project=<name>", code="invalid_parameter")
    if not _visible(producer_namespace, scope, name):
        if project is None:
            raise Forbidden(
                "you may not see the lineage of this server's default project; pass "
                "?project=<name> with a project you may see (GET /api/v1/lineage/registry/all "
                "lists them), or send a key that may see it"
            )
        raise Forbidden(f"you may not see the lineage of project {name!r}")
    if name != source.project:
        known = source.projects()
        if name not in known:
            visible = [p for p in known if _visible(producer_namespace, scope, p)]
            raise NotFound(
                f"the registry has no project {name!r}; "
                f"projects you may see: {', '.join(visible) or 'none'} (check the spelling)"
            )
    return name


def _response(graph: Graph, projects: list[str]) -> RegistryLineage:
    return RegistryLineage(
        projects=projects,
        nodes=[_node(node) for node in sorted(graph.nodes.values(), key=lambda n: n.id)],
        edges=[
            RegistryEdge(
                source=e.source,
                target=e.target,
                source_type=e.source_type,
                target_type=e.target_type,
            )
            for e in sorted(graph.edges, key=lambda e: (e.source, e.target))
        ],
    )


def _node(node: Node) -> RegistryNode:
    return RegistryNode(
        id=node.id,
        type=node.type,
        name=node.name,
        project=node.project,
        missing=node.missing,
        object=node.object,
    )


def registry_lineage(
    read: RegistryReader, project: str | None, *, complete: bool
) -> RegistryLineage:
    name = _project(read, project)
    source = read.source
    graph = project_graph(source.objects(name), source.repo_path, complete=complete)
    return _response(graph, [name])


def registry_lineage_all(read: RegistryReader, *, complete: bool) -> RegistryLineage:
    graph = Graph()
    source = read.source
    projects = [p for p in source.projects() if _visible(read.producer_namespace, read.scope, p)]
    for project in projects:
        graph.extend(project_graph(source.objects(project), source.repo_path, complete=complete))
    return _response(graph, projects)


def registry_object(
    read: RegistryReader, project: str | None, object_type: str, object_name: str
) -> RegistryObject:
    group = _GROUP_OF_TYPE.get(object_type)
    if group is None:
        raise LineageError(
            f"{object_type!r} is not an object type; use one of {', '.join(OBJECT_TYPES)} "
            f"(or Feast's {', '.join(FEAST_TYPE_GROUPS)})",
            code="invalid_object_type",
        )
    name = _project(read, project)
    source = read.source
    objects = source.objects(name)
    ref = Ref(group, object_name)
    obj = objects.get(ref)
    # A Feast type name (featureView) takes any kind of its group; ours, that kind.
    exact = object_type in GROUP_OF_KIND
    if obj is None or (exact and kind_of(obj) != object_type):
        raise NotFound(
            f"project {name!r} has no {object_type} named {object_name!r}; "
            + not_found.registry_objects(name)
        )
    graph = project_graph(objects, source.repo_path, complete=False)
    center = node_id(name, ref)
    upstream = [e.source for e in graph.edges if e.target == center]
    downstream = [e.target for e in graph.edges if e.source == center]
    node = graph.nodes[center]
    node.object = object_metadata(obj)
    return RegistryObject(
        project=name,
        node=_node(node),
        upstream=[_node(graph.nodes[i]) for i in sorted(set(upstream))],
        downstream=[_node(graph.nodes[i]) for i in sorted(set(downstream))],
        edges=_response(
            Graph(edges=[e for e in graph.edges if center in (e.source, e.target)]), [name]
        ).edges,
    )
