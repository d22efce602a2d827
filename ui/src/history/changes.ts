// "Changes since…" (issue 40): the graph now (or as of an instant) against the
// graph as of an earlier instant, by the definition of the API's diff: the
// set differences of the two as_of answers. Removed nodes and edges are drawn
// too (faded, from the earlier answer), added ones marked, and datasets whose
// schema changed carry their field diff.

import { index, type Change, type LGraph, type OpenLineageInput } from "../graph/model";
import type { GraphEdge, GraphNode } from "../types";
import { fieldDiff, type FieldDiff } from "./versions";

export interface Changes {
  /** API node id -> its change. */
  nodes: Map<string, Change>;
  /** API edge key (edgeKey) -> added or removed. */
  edges: Map<string, Change>;
  /** API node id of a dataset whose schema changed -> the field diff. */
  schemas: Map<string, FieldDiff>;
  counts: { added: number; removed: number; changed: number; edgesAdded: number; edgesRemoved: number };
}

export const edgeKey = (edge: GraphEdge) => `${edge.source}\u0000${edge.target}\u0000${edge.type}`;

function schemaChanged(diff: FieldDiff): boolean {
  return diff.added.length + diff.removed.length + diff.typeChanged.length + diff.descriptionChanged.length > 0;
}

/** The later answer with what the earlier one had and it lost, and what changed between them. */
export function compare(then: OpenLineageInput, now: OpenLineageInput): { merged: OpenLineageInput; changes: Changes } {
  const before = new Map(then.nodes.map((n) => [n.id, n]));
  const after = new Map(now.nodes.map((n) => [n.id, n]));
  const nodes = new Map<string, Change>();
  const schemas = new Map<string, FieldDiff>();
  const removedNodes: GraphNode[] = [];
  for (const node of now.nodes) {
    const was = before.get(node.id);
    if (!was) nodes.set(node.id, "added");
    else if (node.kind === "dataset" && (was.schema_fields?.length || node.schema_fields?.length)) {
      const diff = fieldDiff(was.schema_fields ?? [], node.schema_fields ?? []);
      if (schemaChanged(diff)) {
        nodes.set(node.id, "changed");
        schemas.set(node.id, diff);
      }
    }
  }
  for (const node of then.nodes) {
    if (!after.has(node.id)) {
      nodes.set(node.id, "removed");
      removedNodes.push(node);
    }
  }
  const edges = new Map<string, Change>();
  const thenEdges = new Set(then.edges.map(edgeKey));
  const nowEdges = new Set(now.edges.map(edgeKey));
  for (const edge of now.edges) if (!thenEdges.has(edgeKey(edge))) edges.set(edgeKey(edge), "added");
  const removedEdges = then.edges.filter((edge) => !nowEdges.has(edgeKey(edge)));
  for (const edge of removedEdges) edges.set(edgeKey(edge), "removed");
  const linkKey = (l: OpenLineageInput["symlinks"][number]) => `${l.alias}\u0000${l.dataset}`;
  const nowLinks = new Set(now.symlinks.map(linkKey));
  const count = (what: Change, map: Map<string, Change>) => [...map.values()].filter((c) => c === what).length;
  return {
    merged: {
      nodes: [...now.nodes, ...removedNodes],
      edges: [...now.edges, ...removedEdges],
      derived_edges: now.derived_edges,
      // A removed node keeps its aliases of then (an alias link of now wins).
      symlinks: [
        ...now.symlinks,
        ...then.symlinks.filter((l) => !nowLinks.has(linkKey(l)) && !after.has(l.dataset) && !after.has(l.alias)),
      ],
    },
    changes: {
      nodes,
      edges,
      schemas,
      counts: {
        added: count("added", nodes),
        removed: count("removed", nodes),
        changed: count("changed", nodes),
        edgesAdded: count("added", edges),
        edgesRemoved: count("removed", edges),
      },
    },
  };
}

/**
 * `graph` (drawn from a compare's merged answer) with each drawn node and
 * edge marked: a node drawn for several API nodes takes the change of its
 * own id; an edge is added or removed when every API edge it stands for is.
 */
export function markChanges(graph: LGraph, merged: OpenLineageInput, changes: Changes): LGraph {
  const pairs = new Map<string, Set<Change | "kept">>();
  for (const edge of merged.edges) {
    const s = graph.drawnAs.get(edge.source) ?? edge.source;
    const t = graph.drawnAs.get(edge.target) ?? edge.target;
    const key = `${s}\u0000${t}`;
    const set = pairs.get(key) ?? pairs.set(key, new Set()).get(key)!;
    set.add(changes.edges.get(edgeKey(edge)) ?? "kept");
  }
  const nodes = graph.nodes.map((node) => {
    const change = changes.nodes.get(node.id);
    return change ? { ...node, change } : node;
  });
  const edges = graph.edges.map((edge) => {
    const seen = pairs.get(`${edge.source}\u0000${edge.target}`);
    const change = seen && seen.size === 1 && !seen.has("kept") ? ([...seen][0] as Change) : undefined;
    return change ? { ...edge, change } : edge;
  });
  return index(nodes, edges, graph.drawnAs);
}
