"""Removing references to hidden namespaces from stored JSON (events, facets).

A visible event or node can name datasets and jobs of namespaces the
caller may not see: an event's inputs and outputs, a ``parent`` run facet,
a ``symlinks`` dataset facet. For a finite scope these references are
dropped before the JSON leaves the server; with an unlimited scope the JSON
is returned as stored.
"""

from __future__ import annotations

from typing import Any

from feast_lineage.consumer.authz import Scope


def _visible_ref(value: Any, scope: Scope) -> bool:
    namespace = value.get("namespace") if isinstance(value, dict) else None
    return isinstance(namespace, str) and scope.allows(namespace)


def facets(value: Any, scope: Scope) -> Any:
    """A facets object without the parts that name hidden namespaces."""
    if scope.is_everything or not isinstance(value, dict):
        return value
    out = dict(value)
    links = out.get("symlinks")
    if isinstance(links, dict) and isinstance(links.get("identifiers"), list):
        kept = [i for i in links["identifiers"] if _visible_ref(i, scope)]
        if kept:
            out["symlinks"] = {**links, "identifiers": kept}
        else:
            del out["symlinks"]
    parent = out.get("parent")
    if isinstance(parent, dict):
        if not _visible_ref(parent.get("job"), scope):
            del out["parent"]
        elif "root" in parent and not _visible_ref(
            (parent.get("root") or {}).get("job") if isinstance(parent.get("root"), dict) else None,
            scope,
        ):
            out["parent"] = {k: v for k, v in parent.items() if k != "root"}
    return out


def _dataset(value: Any, scope: Scope) -> Any:
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in ("facets", "inputFacets", "outputFacets"):
        if key in out:
            out[key] = facets(out[key], scope)
    return out


def event(value: dict[str, Any], scope: Scope) -> dict[str, Any]:
    """An OpenLineage event as a caller limited to ``scope`` may see it."""
    if scope.is_everything:
        return value
    out = dict(value)
    for key in ("run", "job"):
        part = out.get(key)
        if isinstance(part, dict) and "facets" in part:
            out[key] = {**part, "facets": facets(part["facets"], scope)}
    for key in ("inputs", "outputs"):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [_dataset(ds, scope) for ds in items if _visible_ref(ds, scope)]
    if isinstance(out.get("dataset"), dict):
        out["dataset"] = _dataset(out["dataset"], scope)
    return out
