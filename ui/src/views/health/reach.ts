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
