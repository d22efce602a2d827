"""Registry lineage: the Feast-only lineage, built from the registry itself.

:class:`RegistrySource` opens the feature repository's registry the way
Feast does (feature_store.yaml, Feast's own FeatureStore) on the first
request, so the server starts without importing Feast. Every request then
reads the registry afresh (no cache), turns the objects into a graph with
:mod:`feast_lineage.registry.object_graph`, and keeps only the projects the caller
may see: a project is visible when its own OpenLineage namespace is.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import make_url

from feast_lineage.consumer.authz import Scope, project_namespaces
from feast_lineage.consumer.errors import Forbidden, LineageError, NotFound
from feast_lineage.consumer.schemas import (
    RegistryEdge,
    RegistryLineage,
    RegistryNode,
    RegistryObject,
)
from feast_lineage.consumer.settings import AppSettings
from feast_lineage.registry.object_graph import Graph, Node, node_id, object_metadata, project_graph
from feast_lineage.registry.objects import (
    GROUP_OF_KIND,
    Group,
    ProjectObjects,
    Ref,
    kind_of,
    read_project,
)

log = logging.getLogger(__name__)

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
T = TypeVar("T")


class RegistryUnavailable(LineageError):
    status = 503
    code = "registry_unavailable"


class RegistrySource:
    """The Feast registry of the server's feature repository, opened on first use."""

    def __init__(self, settings: AppSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._store: Any = None

    @property
    def repo_path(self) -> Path | None:
        return self.settings.repo_path

    def require_repository(self) -> None:
        if self.settings.repo_path is None:
            raise NotFound(
                "this lineage server has no feature repository, so no registry lineage; "
                "start it from the repository (or with -c/--chdir pointing at it)",
                code="no_registry",
            )

    def registry(self) -> Any:
        return self._feature_store().registry

    def repo_config(self) -> Any:
        """Feast's RepoConfig of the repository (its ``auth_config`` among others)."""
        return self._feature_store().config

    def _feature_store(self) -> Any:
        self.require_repository()
        with self._lock:
            if self._store is None:
                self._store = self._open()
        return self._store

    def _open(self) -> Any:
        try:
            from feast import FeatureStore
            from feast.repo_config import load_repo_config

            repo = self.settings.repo_path
            assert repo is not None
            yaml_file = self.settings.fs_yaml_file or repo / "feature_store.yaml"
            config = load_repo_config(repo, yaml_file)
            _anchor_sqlite_registry(config, repo)
            return FeatureStore(repo_path=str(repo), config=config)
        except Exception as err:
            log.exception("the Feast registry could not be opened")
            raise RegistryUnavailable(
                f"the Feast registry could not be opened ({type(err).__name__}); "
                "check the registry section of feature_store.yaml and the server log"
            ) from None

    def projects(self) -> list[str]:
        """The registry's projects and the repository's own (which may have none yet)."""
        listed = _reading(lambda: self.registry().list_projects(allow_cache=False))
        names = {project.name for project in listed}
        if self.settings.project:
            names.add(self.settings.project)
        return sorted(names)

    def objects(self, project: str) -> ProjectObjects:
        return _reading(lambda: read_project(self.registry(), project))


def _reading(read: Callable[[], T]) -> T:
    """``read()``, a registry that cannot be read (corrupt, unreachable) a 503."""
    try:
        return read()
    except LineageError:
        raise
    except Exception as err:
        log.exception("reading the Feast registry failed")
        raise RegistryUnavailable(
            f"the Feast registry could not be read ({type(err).__name__}); see the server log"
        ) from None


def _anchor_sqlite_registry(config: Any, repo: Path) -> None:
    """A relative SQLite registry path is the repository's, not this process's cwd."""
    registry = config.registry
    path = getattr(registry, "path", None)
    if getattr(registry, "registry_type", None) != "sql" or not isinstance(path, str):
        return
    url = make_url(path)
    database = url.database
    local = url.drivername.startswith("sqlite") and database and database != ":memory:"
    if local and not Path(str(database)).is_absolute():
        anchored = url.set(database=str((repo / str(database)).resolve()))
        registry.path = anchored.render_as_string(hide_password=False)


def _visible(settings: AppSettings, scope: Scope, project: str) -> bool:
    if scope.is_everything:
        return True
    own = project_namespaces([project], {}, settings.producer_namespace)
    return any(scope.allows(namespace) for namespace in own)


def _project(source: RegistrySource, scope: Scope, project: str | None) -> str:
    """The project asked for (default: the repository's), visible and known.

    Visibility comes first, so a project the caller may not see is refused
    the same whether or not it exists. The repository's own project is
    known even before anything is applied to it (its graph is empty).
    """
    source.require_repository()
    name = project or source.settings.project
    if not name:
        raise LineageError("pass ?project=<name>", code="invalid_parameter")
    if not _visible(source.settings, scope, name):
        raise Forbidden(f"you may not see the lineage of project {name!r}")
    if name != source.settings.project:
        known = source.projects()
        if name not in known:
            visible = [p for p in known if _visible(source.settings, scope, p)]
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
    source: RegistrySource, scope: Scope, project: str | None, *, complete: bool
) -> RegistryLineage:
    name = _project(source, scope, project)
    graph = project_graph(source.objects(name), source.repo_path, complete=complete)
    return _response(graph, [name])


def registry_lineage_all(
    source: RegistrySource, scope: Scope, *, complete: bool
) -> RegistryLineage:
    graph = Graph()
    projects = [p for p in source.projects() if _visible(source.settings, scope, p)]
    for project in projects:
        graph.extend(project_graph(source.objects(project), source.repo_path, complete=complete))
    return _response(graph, projects)


def registry_object(
    source: RegistrySource,
    scope: Scope,
    project: str | None,
    object_type: str,
    object_name: str,
) -> RegistryObject:
    group = _GROUP_OF_TYPE.get(object_type)
    if group is None:
        raise LineageError(
            f"{object_type!r} is not an object type; use one of {', '.join(OBJECT_TYPES)} "
            f"(or Feast's {', '.join(FEAST_TYPE_GROUPS)})",
            code="invalid_object_type",
        )
    name = _project(source, scope, project)
    objects = source.objects(name)
    ref = Ref(group, object_name)
    obj = objects.get(ref)
    # A Feast type name (featureView) takes any kind of its group; ours, that kind.
    exact = object_type in GROUP_OF_KIND
    if obj is None or (exact and kind_of(obj) != object_type):
        raise NotFound(f"project {name!r} has no {object_type} named {object_name!r}")
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
