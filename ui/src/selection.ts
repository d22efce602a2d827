// Nodes named in the URL: the one open in the details panel (node_type,
// node_ns, node) and the one the lineage tab is focused on (focus_type,
// focus_ns, focus):
//   *_type  job | dataset (OpenLineage) or a Feast kind (registry view)
//   *_ns    the OpenLineage namespace, or the Feast project
//   node / focus   the name
// Three plain parameters each, because namespaces hold ":" and "/" themselves.
// In the OpenLineage view a Feast kind names a Feast object, which the view
// resolves to its dataset (so links from the registry view keep the node).

import type { Route } from "./route";
import type { LNode } from "./graph/model";
import { nodeId } from "./nodeId";

export interface Selection {
  source: "openlineage" | "registry";
  type: string;
  namespace: string;
  name: string;
}

const GROUP_OF_KIND: Record<string, string> = {
  entity: "entity",
  data_source: "data_source",
  feature_view: "feature_view",
  on_demand_feature_view: "feature_view",
  stream_feature_view: "feature_view",
  feature_service: "feature_service",
  saved_dataset: "saved_dataset",
};

export function isRegistryView(route: Route): boolean {
  return (route.tab ?? "lineage") === "lineage" && route.view === "feast";
}

export type RefKey = "node" | "focus";

export function isFeastKind(type: string): boolean {
  return type in GROUP_OF_KIND;
}

export function selectionOf(route: Route, registryView: boolean, key: RefKey = "node"): Selection | null {
  const type = route[`${key}_type`];
  const namespace = route[`${key}_ns`];
  const name = route[key];
  if (!type || namespace === undefined || !name) return null;
  const source = registryView ? "registry" : "openlineage";
  if (source === "openlineage" && type !== "job" && type !== "dataset" && !isFeastKind(type)) return null;
  if (source === "registry" && !isFeastKind(type)) return null;
  return { source, type, namespace, name };
}

/** The id the API (and so the graph) gives the selected node. */
export function selectionId(sel: Selection): string {
  if (sel.source === "registry") return `${sel.namespace}:${GROUP_OF_KIND[sel.type]}:${sel.name}`;
  return nodeId(sel.type, sel.namespace, sel.name);
}

/** The type, namespace and name of a drawn node. */
export function refOf(node: LNode): { type: string; namespace: string; name: string } | null {
  if (node.ol) return { type: node.ol.kind, namespace: node.ol.namespace, name: node.ol.name };
  if (node.reg) return { type: node.reg.type, namespace: node.reg.project, name: node.reg.name };
  return null;
}

/**
 * The URL's keys that pick something inside the open node's details: its run
 * expanded, its page of runs, its dataset or job version. They name nothing in
 * another node (a version kept would be asked of the next one, and not found).
 */
export const DETAIL_KEYS = ["run", "runs_offset", "dsver", "jobver", "jobver_at"] as const;

/**
 * The route change that puts `node` under `key` (or clears it). Under "node",
 * what was open inside the last node's details is cleared too, unless `same`
 * (the same node, named anew).
 */
export function refPatch(
  node: LNode | { type: string; namespace: string; name: string } | null,
  key: RefKey = "node",
  { same = false }: { same?: boolean } = {},
): Record<string, string | null> {
  const ref = node === null ? null : "kind" in node ? refOf(node) : node;
  const patch: Record<string, string | null> = {
    [`${key}_type`]: ref?.type ?? null,
    [`${key}_ns`]: ref?.namespace ?? null,
    [key]: ref?.name ?? null,
  };
  if (key === "node" && !same) for (const detail of DETAIL_KEYS) patch[detail] = null;
  return patch;
}
