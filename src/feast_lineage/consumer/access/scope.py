"""The caller's scope: the OpenLineage namespaces it may see, and a project's namespaces."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from feast_lineage.config.authorizer import ALL_PROJECTS
from feast_lineage.config.producer import project_namespace
from feast_lineage.identity import namespace_id


@dataclass(frozen=True)
class Scope:
    """The namespaces a caller may see: ``None`` means every namespace."""

    namespaces: frozenset[str] | None = field(default=None)

    @classmethod
    def everything(cls) -> Scope:
        return cls(None)

    @classmethod
    def of(cls, namespaces: Iterable[str]) -> Scope:
        return cls(frozenset(namespaces))

    @property
    def is_everything(self) -> bool:
        return self.namespaces is None

    @cached_property
    def ns_ids(self) -> frozenset[int] | None:
        """The namespace ids of a finite scope (``None`` for everything)."""
        if self.namespaces is None:
            return None
        return frozenset(namespace_id(ns) for ns in self.namespaces)

    def allows(self, namespace: str) -> bool:
        return self.namespaces is None or namespace in self.namespaces

    def allows_id(self, ns_id: int) -> bool:
        ids = self.ns_ids
        return ids is None or ns_id in ids

    def union(self, other: Scope | None) -> Scope:
        """What either scope may see (``other`` ``None``: this scope alone)."""
        if other is None:
            return self
        if self.namespaces is None or other.namespaces is None:
            return Scope.everything()
        return Scope.of(self.namespaces | other.namespaces)

    def sees_project(self, project: str, producer_namespace: str) -> bool:
        """Whether one of ``project``'s own namespaces is visible (the project is, then)."""
        if self.namespaces is None:
            return True
        own = project_namespaces([project], {}, producer_namespace)
        return any(self.allows(namespace) for namespace in own)

    def narrow(self, namespace: str | None) -> Scope:
        """This scope limited to ``namespace`` (empty when it is not visible)."""
        if namespace is None:
            return self
        return Scope.of([namespace] if self.allows(namespace) else [])

    def cache_key(self) -> tuple[str, ...] | None:
        return None if self.namespaces is None else tuple(sorted(self.namespaces))


def project_namespaces(
    projects: Iterable[str], namespace_mapping: Mapping[str, str], producer_namespace: str
) -> frozenset[str]:
    """The OpenLineage namespaces that belong to ``projects``.

    A project's own namespaces are its name (the producer's default
    namespace ``feast``) and the one the producer's namespace gives it
    (:func:`feast_lineage.config.producer.project_namespace`); every
    ``namespace_mapping`` key whose value is one of the projects is added.
    """
    wanted = set(projects)
    out: set[str] = set()
    for project in wanted:
        out.add(project)
        out.add(project_namespace(producer_namespace, project))
    out.update(ns for ns, project in namespace_mapping.items() if project in wanted)
    return frozenset(out)


def projects_scope(
    projects: Iterable[str], namespace_mapping: Mapping[str, str], producer_namespace: str
) -> Scope:
    """The scope of configured ``projects`` (``"*"`` among them: everything)."""
    projects = list(projects)
    if ALL_PROJECTS in projects:
        return Scope.everything()
    return Scope.of(project_namespaces(projects, namespace_mapping, producer_namespace))
