// What a problem reaches, as the Health tab lists it, and the route that
// shows it on the graph: focused on the cause, downstream, deep enough for
// every node it lists, with the path to one of them (or all) lit.

import { MAX_DEPTH } from "../../depth";
import type { Patch } from "../../route";
import { refPatch } from "../../selection";
import type { HealthProblem, ReachGroups, Reached } from "../../types";

export type ReachGroup = keyof ReachGroups;

/** The groups in the order the tab lists them, with their headings. */
export const REACH_GROUPS: { key: ReachGroup; label: string }[] = [
  { key: "feature_services", label: "Feature services" },
  { key: "feature_views", label: "Feature views" },
  { key: "saved_datasets", label: "Saved datasets" },
  { key: "other", label: "Other (models, jobs and datasets at the end of a path)" },
];

/** Feast objects' datasets are named "<kind>/<name>": the kind in words. */
const FEAST_KINDS: Record<string, string> = {
  feature_service: "feature service",
  feature_view: "feature view",
  saved_dataset: "saved dataset",
  online_store: "online store",
  data_source: "data source",
  entity: "entity",
  training_frame: "training frame",
};

/** The kind each group's heading already says. */
const GROUP_KIND: Partial<Record<ReachGroup, string>> = {
  feature_services: "feature_service",
  feature_views: "feature_view",
  saved_datasets: "saved_dataset",
};

/**
 * How a reached node reads under its group's heading: a Feast object of the
 * heading's kind by its own name; any other Feast object with its kind in
 * words (an online store is named after its feature view, a training frame
 * after its feature service), so no two rows read alike.
 */
export function reachedLabel(name: string, group: ReachGroup): { kind: string | null; name: string } {
  const cut = name.indexOf("/");
  const prefix = cut > 0 ? name.slice(0, cut) : "";
  if (!(prefix in FEAST_KINDS)) return { kind: null, name };
  const rest = name.slice(cut + 1);
  return GROUP_KIND[group] === prefix ? { kind: null, name: rest } : { kind: FEAST_KINDS[prefix], name: rest };
}

/** The furthest reached node's distance: the depth that shows them all (1 to MAX_DEPTH). */
export function reachDepth(problem: HealthProblem): number {
  let far = 1;
  for (const { key } of REACH_GROUPS) for (const reached of problem.reaches[key]) far = Math.max(far, reached.distance);
  return Math.min(MAX_DEPTH, far);
}

/**
 * The Lineage tab focused on the problem's cause, downstream; selected: the
 * cause (its whole downstream lit) or one reached node (the path to it lit).
 */
export function graphPatch(problem: HealthProblem, target: Reached | null): Patch {
  const cause = { type: problem.node.kind, namespace: problem.node.namespace, name: problem.node.name };
  return {
    tab: null,
    view: null,
    ns: null,
    kind: null,
    offset: null,
    ...refPatch(cause, "focus"),
    ...refPatch(target ? { type: target.type, namespace: target.namespace, name: target.name } : cause),
    dir: "downstream",
    depth: reachDepth(problem),
  };
}
