// A node focused downstream, under a key that may not see every namespace.
//
// A subgraph never walks through a node the caller may not see; lineage
// health does, and so does /impact, which lists the visible nodes a node
// reaches that way, each with one shortest path that leaves the hidden
// nodes out. A failed task that writes a hidden file reaches all it puts at
// risk through that file: its focused subgraph is the task alone. So the
// focused graph also draws what /impact lists beyond the subgraph (each node
// as the whole graph has it, with the edges among them), and each stretch of
// a path through hidden nodes as one edge of its own, "through hidden
// nodes", which names nothing it goes through.

import type { GraphNode, Impact, ReachGroups, Reached } from "../types";
import { index, type LEdge, type LGraph, type OpenLineageInput } from "./model";

/** The edges a step of the walk takes between two visible nodes, along them (and symlinks, either way). */
const STEP_EDGES = new Set(["input", "output", "job_to_job", "dataset_to_dataset"]);

export interface Reach {
  /** The subgraph, with the reached nodes it lacks and the edges, derived edges and symlinks among all. */
  input: OpenLineageInput;
  /** One shortest path (API ids of visible nodes) to each reached node. */
  paths: string[][];
  /** Some reached nodes are not drawn: /impact lists fewer than it counts, or the loaded graph lacks them. */
  incomplete: boolean;
}

function reachedOf(impact: Impact): { reached: Reached[]; listedAll: boolean } {
  const groups = Object.keys(impact.totals) as (keyof ReachGroups)[];
  return {
    reached: groups.flatMap((group) => impact.affected[group]),
    listedAll: groups.every((group) => impact.totals[group] <= impact.affected[group].length),
  };
}

function unique<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** `sub` with the nodes `impact` reaches that it lacks, taken from `whole` (the whole graph loaded). */
export function withReached(sub: OpenLineageInput, whole: OpenLineageInput, impact: Impact): Reach {
  const { reached, listedAll } = reachedOf(impact);
  const paths = reached.map((r) => r.path);
  const inside = new Set(sub.nodes.map((n) => n.id));
  const wholeNodes = new Map(whole.nodes.map((n) => [n.id, n]));
  const extra: GraphNode[] = [];
  let incomplete = !listedAll;
  for (const r of reached) {
    if (inside.has(r.node)) continue;
    const node = wholeNodes.get(r.node);
    if (!node) {
      incomplete = true;
      continue;
    }
    extra.push({ ...node, depth: r.distance });
    inside.add(r.node);
  }
  if (extra.length === 0) return { input: sub, paths, incomplete };
  const among = (...ids: string[]) => ids.every((id) => inside.has(id));
  const input: OpenLineageInput = {
    nodes: [...sub.nodes, ...extra],
    edges: unique(
      [...sub.edges, ...whole.edges.filter((e) => among(e.source, e.target))],
      (e) => `${e.source}\u0000${e.target}\u0000${e.type}\u0000${e.origin ?? ""}`,
    ),
    derived_edges: unique(
      [...sub.derived_edges, ...whole.derived_edges.filter((e) => among(e.source, e.target, e.via))],
      (e) => `${e.source}\u0000${e.target}\u0000${e.via}`,
    ),
    symlinks: unique(
      [...sub.symlinks, ...whole.symlinks.filter((s) => among(s.dataset))],
      (s) => `${s.dataset}\u0000${s.alias}`,
    ),
  };
  return { input, paths, incomplete };
}

/**
 * `graph` (drawn from `input`) with an edge "through hidden nodes" for each
 * stretch of a path that no edge of `input` takes: from the node drawn last
 * before it to the next one drawn (a job the Jobs filter leaves out on the
 * way is passed over, as its own edges are).
 */
export function withHiddenStretches(graph: LGraph, input: OpenLineageInput, paths: string[][]): LGraph {
  const steps = new Set<string>();
  for (const e of input.edges) {
    if (STEP_EDGES.has(e.type)) steps.add(`${e.source}\u0000${e.target}`);
    else if (e.type === "symlink") {
      steps.add(`${e.source}\u0000${e.target}`);
      steps.add(`${e.target}\u0000${e.source}`);
    }
  }
  const known = new Set(input.nodes.map((n) => n.id));
  const drawn = (id: string) => {
    const rep = graph.drawnAs.get(id);
    return rep !== undefined && graph.byId.has(rep) ? rep : null;
  };
  const linked = new Set(graph.edges.map((e) => `${e.source}\u0000${e.target}`));
  const stretches: LEdge[] = [];
  for (const path of paths) {
    let from = drawn(path[0]);
    let hidden = false;
    for (let i = 1; i < path.length && known.has(path[i]); i++) {
      if (!steps.has(`${path[i - 1]}\u0000${path[i]}`)) hidden = true;
      const to = drawn(path[i]);
      if (to === null) continue;
      const key = `${from}\u0000${to}`;
      if (hidden && from !== null && from !== to && !linked.has(key)) {
        linked.add(key);
        stretches.push({ id: `hidden:${key}`, source: from, target: to, kind: "hidden" });
      }
      from = to;
      hidden = false;
    }
  }
  return stretches.length ? index(graph.nodes, [...graph.edges, ...stretches], graph.drawnAs) : graph;
}
