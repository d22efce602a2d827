"""Feast's own auth, asked about one caller: its token parser and its permissions.

Kept beside the registry loader so that the consumer imports Feast nowhere
else: the ``feast`` authorizer (:mod:`feast_lineage.consumer.access.feast_permissions`)
calls these two functions.
"""

from __future__ import annotations

from typing import Any


def token_parser(auth_config: Any) -> Any:
    """Feast's own token parser for the repository's ``auth`` section."""
    kind = getattr(auth_config, "type", "no_auth")
    if kind == "oidc":
        from feast.permissions.auth.oidc_token_parser import OidcTokenParser

        return OidcTokenParser(auth_config=auth_config)
    if kind == "kubernetes":
        from feast.permissions.auth.kubernetes_token_parser import KubernetesTokenParser

        return KubernetesTokenParser()  # type: ignore[no-untyped-call]
    raise ValueError(f"Feast auth type {kind!r} names no identity provider")


def permitted_projects(registry: Any, user: Any, extra_project: str | None) -> list[str]:
    """The registry's projects that ``user`` may DESCRIBE, by Feast's own rules."""
    from feast.errors import FeastPermissionError
    from feast.permissions.action import AuthzedAction
    from feast.permissions.enforcer import enforce_policy
    from feast.project import Project

    projects = {p.name: p for p in registry.list_projects(allow_cache=True)}
    if extra_project and extra_project not in projects:
        projects[extra_project] = Project(name=extra_project)
    actions = [AuthzedAction.DESCRIBE]
    permitted: list[str] = []
    for name, project in sorted(projects.items()):
        permissions = registry.list_permissions(project=name, allow_cache=True)
        # No permission that applies: denied, without Feast's error log per project.
        if not any(p.match_resource(project) and p.match_actions(actions) for p in permissions):
            continue
        try:
            if enforce_policy(permissions, user, [project], actions):
                permitted.append(name)
        except FeastPermissionError:
            continue
    return permitted
