// "Changes since…" (issue 40): the graph now (or as of an instant) with what
// the server's diff (GET /lineage/diff) says changed since an earlier
// instant. The later graph answer gives the layout; the diff gives what was
// removed (drawn faded at its old place: the diff's nodes and edges as of
// then), what was added, the datasets whose schema changed (with the field
// diff), the jobs whose source facets or inputs and outputs changed (with the
// job version on each side), and the column edges added and removed.

import { index, type Change, type LGraph, type OpenLineageInput } from "../graph/model";
import type { ColumnEdge } from "../api/columns";
import type { GraphEdge, GraphNode, LineageDiff, SchemaDiff } from "../types";
import type { FieldDiff } from "./versions";

/** A job whose job version differs between the two instants. */
export interface JobDiff {
  /** Its job version at each instant (the ids of its versions endpoint). */
  from: string | null;
  to: string | null;
  /** What differs: sourceCode, sql, sourceCodeLocation, jobType, inputs, outputs. */
  changed: string[];
}

/** A dataset whose schema differs between the two instants. */
export interface SchemaChangeOf {
  diff: FieldDiff;
  from: string | null;
  to: string | null;
}

export interface Changes {
  /** API node id -> its change. */
  nodes: Map<string, Change>;
  /** API edge key (edgeKey) -> added or removed. */
  edges: Map<string, Change>;
  /** API node id of a dataset whose schema changed -> the field diff and its versions. */
  schemas: Map<string, SchemaChangeOf>;
  /** API node id of a job whose definition changed -> what and its versions. */
  jobs: Map<string, JobDiff>;
  /** Column edges (columnEdgeKey) added, and those removed (as they were). */
  columnsAdded: Set<string>;
  columnsRemoved: ColumnEdge[];
  /** How many column edges the diff names added and removed. */
  columnCounts: { added: number; removed: number };
}

/**
 * What the banner counts (drawnCounts): the changes as the graph draws them
 * (an alias group is one node, an edge one per pair of drawn nodes), so its
 * numbers are those of the graph shown, and apart the jobs with a change
 * that the Jobs filter does not draw.
 */
export interface ChangeCounts {
  added: number;
  removed: number;
  /** Datasets whose schema changed. */
  schemas: number;
  /** Jobs whose definition changed. */
  jobs: number;
  edgesAdded: number;
  edgesRemoved: number;
  /** Jobs with a change that the Jobs filter does not draw: added, removed, redefined. */
  notShown: { added: number; removed: number; jobs: number };
  columnEdgesAdded: number;
  columnEdgesRemoved: number;
}

export const edgeKey = (edge: Pick<GraphEdge, "source" | "target" | "type">) =>
  `${edge.source}\u0000${edge.target}\u0000${edge.type}`;

/** A column edge by its two fields (the column view draws one edge per pair). */
export const columnEdgeKey = (edge: Pick<ColumnEdge, "source" | "target">) => `${edge.source}\u0000${edge.target}`;

/** The API's field-level diff as the panel lists it. */
export function fieldDiffOf(diff: SchemaDiff): FieldDiff {
  return {
    added: diff.added.map((f) => f.name),
    removed: diff.removed.map((f) => f.name),
    typeChanged: diff.type_changed.map((f) => ({ name: f.name, before: f.before ?? null, after: f.after ?? null })),
    descriptionChanged: diff.description_changed.map((f) => f.name),
  };
}

const JOB_WORDS: Record<string, string> = {
  sql: "sql",
  sourceCode: "source code",
  sourceCodeLocation: "code location",
  jobType: "job type",
  inputs: "inputs",
  outputs: "outputs",
};

/** A job's change in words: "sql changed", "sql, inputs changed". */
export function jobChangeWords(changed: readonly string[]): string {
  if (changed.length === 0) return "definition changed";
  return `${changed.map((c) => JOB_WORDS[c] ?? c).join(", ")} changed`;
}

/**
 * The later graph answer (`now`) with the diff's removed nodes and edges
 * (those of the namespace shown, `namespace`; null: every one), and each
 * change of the diff that the merged graph holds.
 */
export function fromDiff(
  now: OpenLineageInput,
  diff: LineageDiff,
  namespace: string | null = null,
): { merged: OpenLineageInput; changes: Changes } {
  const present = new Set(now.nodes.map((n) => n.id));
  const removedNodes: GraphNode[] = diff.nodes_removed.filter(
    (n) => !present.has(n.id) && (namespace === null || n.namespace === namespace),
  );
  const all = new Set([...present, ...removedNodes.map((n) => n.id)]);
  const nodes = new Map<string, Change>();
  for (const n of diff.nodes_added) if (present.has(n.id)) nodes.set(n.id, "added");
  for (const n of removedNodes) nodes.set(n.id, "removed");
  const schemas = new Map<string, SchemaChangeOf>();
  for (const s of diff.schema_changes) {
    if (!present.has(s.node)) continue;
    nodes.set(s.node, "changed");
    schemas.set(s.node, { diff: fieldDiffOf(s.diff), from: s.from_version ?? null, to: s.to_version ?? null });
  }
  const jobs = new Map<string, JobDiff>();
  for (const j of diff.job_changes) {
    if (!present.has(j.node)) continue;
    nodes.set(j.node, "changed");
    jobs.set(j.node, { from: j.from_version ?? null, to: j.to_version ?? null, changed: [...j.changed] });
  }
  const edges = new Map<string, Change>();
  const nowEdges = new Set(now.edges.map(edgeKey));
  for (const e of diff.edges_added) if (nowEdges.has(edgeKey(e))) edges.set(edgeKey(e), "added");
  const removedEdges = diff.edges_removed.filter(
    (e) => !nowEdges.has(edgeKey(e)) && all.has(e.source) && all.has(e.target),
  );
  for (const e of removedEdges) edges.set(edgeKey(e), "removed");
  return {
    merged: {
      nodes: [...now.nodes, ...removedNodes],
      edges: [...now.edges, ...removedEdges],
      derived_edges: now.derived_edges,
      symlinks: now.symlinks,
    },
    changes: {
      nodes,
      edges,
      schemas,
      jobs,
      columnsAdded: new Set(diff.column_edges_added.map(columnEdgeKey)),
      columnsRemoved: diff.column_edges_removed,
      columnCounts: { added: diff.column_edges_added.length, removed: diff.column_edges_removed.length },
    },
  };
}

/**
 * `graph` (drawn from a fromDiff's merged answer) with each drawn node and
 * edge marked: a node drawn for several API nodes takes the change of its
 * own id (a job's in words: "sql changed"); an edge is added or removed when
 * every API edge it stands for is.
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
    if (!change) return node;
    const job = change === "changed" ? changes.jobs.get(node.id) : undefined;
    return job ? { ...node, change, changeWords: jobChangeWords(job.changed) } : { ...node, change };
  });
  const edges = graph.edges.map((edge) => {
    const seen = pairs.get(`${edge.source}\u0000${edge.target}`);
    const change = seen && seen.size === 1 && !seen.has("kept") ? ([...seen][0] as Change) : undefined;
    return change ? { ...edge, change } : edge;
  });
  return index(nodes, edges, graph.drawnAs);
}

/**
 * The changes `graph` (markChanges's) draws, counted as drawn, and the jobs
 * with a change it does not draw: an API node with no drawn node is a job
 * the Jobs filter leaves out (fromOpenLineage draws every other one, alone
 * or in its alias group). Column edges are the diff's (the column view's).
 */
export function drawnCounts(graph: LGraph, changes: Changes): ChangeCounts {
  const counts: ChangeCounts = {
    added: 0,
    removed: 0,
    schemas: 0,
    jobs: 0,
    edgesAdded: 0,
    edgesRemoved: 0,
    notShown: { added: 0, removed: 0, jobs: 0 },
    columnEdgesAdded: changes.columnCounts.added,
    columnEdgesRemoved: changes.columnCounts.removed,
  };
  for (const node of graph.nodes) {
    if (node.change === "added") counts.added += 1;
    else if (node.change === "removed") counts.removed += 1;
    else if (node.change === "changed") counts[node.changeWords ? "jobs" : "schemas"] += 1;
  }
  for (const edge of graph.edges) {
    if (edge.change === "added") counts.edgesAdded += 1;
    else if (edge.change === "removed") counts.edgesRemoved += 1;
  }
  for (const [id, change] of changes.nodes) {
    if (graph.drawnAs.has(id)) continue;
    if (change === "changed") counts.notShown.jobs += 1;
    else counts.notShown[change] += 1;
  }
  return counts;
}
