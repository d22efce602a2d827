// The graph the UI draws, built from the OpenLineage graph API or from the
// registry lineage API.
//
// OpenLineage graphs: datasets that are the same data (a SymlinksDatasetFacet
// or matching dataSource URIs) are drawn as one node, the others listed as its
// aliases. The node is named by the first of the group's names (nameOrder, the
// column view's rule too), which may be a name only a symlink gives; it stands
// for the first of the group's stored datasets. Two Feast objects are never
// merged into one node: when several Feast objects share data, the other
// members become one node joined to each Feast object by a dashed "same data" edge.

import { producerLabel } from "../format";
import type {
  DerivedEdge,
  GraphEdge,
  GraphNode,
  GraphSymlink,
  RegistryLineage,
  RegistryNode,
} from "../types";
import { FEAST_DATASET_KINDS, isVisualKind, type VisualKind } from "./kinds";

export interface Alias {
  id: string;
  namespace: string;
  name: string;
  type: string | null;
  via: "symlink" | "datasource";
  /** The alias as a node of the graph, when a producer reported it. */
  node?: GraphNode;
}

export interface LNode {
  id: string;
  kind: VisualKind;
  label: string;
  /**
   * The end of `label` that is the node's own name, when the rest is its
   * parent job's ("<parent>.<own>": Airflow's dag.task, Spark's app.action):
   * a label too long to show whole keeps it, cutting the parent's part first.
   */
  own?: string;
  title: string; // the full name, for tooltips
  sublabel: string;
  producer: string;
  /** A job's latest run's state (running, completed, failed, aborted), else null. */
  state: RunState | null;
  aliases: Alias[];
  /** The name it is drawn by when only a symlink gives it (then `ol` is among `aliases`). */
  named?: Alias;
  members: string[]; // every API node id this node stands for
  source: "openlineage" | "registry";
  ol?: GraphNode;
  reg?: RegistryNode;
  /** "Changes since…" (history/changes.ts): how it differs from the earlier graph. */
  change?: Change;
  /** A changed job's change in words ("sql, inputs changed"); absent: a dataset's schema. */
  changeWords?: string;
}

/**
 * How a node or edge differs from an earlier graph: changed is a dataset
 * whose schema changed, or a job whose definition (source facets, inputs,
 * outputs) changed.
 */
export type Change = "added" | "removed" | "changed";

/** The icon beside a change's word, on nodes and in lists. */
export const CHANGE_ICONS: Record<Change, string> = { added: "+", removed: "−", changed: "△" };
/** A changed job's own icon (a definition edited), beside its words. */
export const JOB_CHANGE_ICON = "✎";
/** A change of "Changes since…" in words (the graph never tells it by colour alone). */
export const CHANGE_LABELS = { added: "added", removed: "removed", changed: "schema changed" } as const;

/** A node's change as drawn: its icon and its words ("△ schema changed", "✎ sql changed"). */
export function changeText(node: Pick<LNode, "change" | "changeWords">): { icon: string; words: string } | null {
  if (!node.change) return null;
  if (node.change === "changed" && node.changeWords) return { icon: JOB_CHANGE_ICON, words: node.changeWords };
  return { icon: CHANGE_ICONS[node.change], words: CHANGE_LABELS[node.change] };
}

/** What a job node shows of its latest run. */
export type RunState = "running" | "completed" | "failed" | "aborted";

const RUN_STATES: Record<string, RunState> = {
  RUNNING: "running",
  COMPLETE: "completed",
  FAIL: "failed",
  ABORT: "aborted",
};

export function runState(state: string | null | undefined): RunState | null {
  return (state && RUN_STATES[state]) || null;
}

// jobjob: a job feeds another (explicit lineage: a lineage facet or jobDependencies);
// hidden: a stretch of a path through nodes the caller may not see (throughHidden.ts).
export type EdgeKind = "io" | "parent" | "same" | "registry" | "derived" | "jobjob" | "hidden";

export interface LEdge {
  id: string;
  source: string;
  target: string;
  kind: EdgeKind;
  /** Explicit lineage: "declared", "observed" or both, as the API's edges between the two say. */
  origin?: string;
  /** A "seen during" window's answer: the runs that observed it. */
  runs?: number;
  /** "Changes since…": added or removed since the earlier graph. */
  change?: Change;
}

export interface LGraph {
  nodes: LNode[];
  edges: LEdge[];
  byId: Map<string, LNode>;
  /** API node id (or alias id) -> the id of the node drawn for it. */
  drawnAs: Map<string, string>;
  outgoing: Map<string, LEdge[]>;
  incoming: Map<string, LEdge[]>;
}

export interface OpenLineageInput {
  nodes: GraphNode[];
  edges: GraphEdge[];
  derived_edges: DerivedEdge[];
  symlinks: GraphSymlink[];
}

/**
 * Which jobs to draw: every one; all but Feast's apply (definition) jobs,
 * whose inputs and outputs are then joined directly; or none (datasets only).
 */
export type JobsShown = "all" | "runtime" | "none";

export function olKind(node: GraphNode): VisualKind {
  const feastType = node.feast?.type ?? null;
  if (node.kind === "job") return feastType ? "feast_job" : "job";
  if (feastType && FEAST_DATASET_KINDS.has(feastType) && isVisualKind(feastType)) return feastType;
  return "dataset";
}

export function isDefinitionJob(node: GraphNode): boolean {
  return node.kind === "job" && node.feast?.type === "definition_job";
}

const FEAST_GROUPS = ["entity", "data_source", "feature_view", "feature_service", "saved_dataset", "online_store"];

/**
 * The name of the Feast object a dataset stands for: its Feast facet's name,
 * else the dataset name without a "<group>/" prefix ("feature_view/x" -> "x").
 */
export function feastObjectName(node: GraphNode): string | null {
  if (!node.feast?.type) return null;
  for (const [key, value] of Object.entries(node.facets ?? {})) {
    if (!key.startsWith("feast_") || key === "feast_project" || key === "feast_job_kind") continue;
    const named = value as { name?: unknown; feature_view?: unknown };
    if (key === "feast_online_store" && typeof named.feature_view === "string") return named.feature_view;
    if (typeof named.name === "string" && named.name) return named.name;
  }
  const name = node.feast.name ?? node.name;
  const slash = name.indexOf("/");
  return slash > 0 && FEAST_GROUPS.includes(name.slice(0, slash)) ? name.slice(slash + 1) : name;
}

function olLabel(node: GraphNode): string {
  if (node.kind === "dataset" && node.feast?.type && FEAST_DATASET_KINDS.has(node.feast.type)) {
    return feastObjectName(node) ?? node.name;
  }
  return nameLabel(node.name);
}

/** A path: its file name reads best; the full name is in the tooltip. */
function nameLabel(name: string): string {
  if (name.startsWith("/")) return name.slice(name.lastIndexOf("/") + 1) || name;
  return name;
}

/** What orders the names of an alias group (nameOrder). */
interface RankedName {
  id: string;
  feast: boolean;
  table: boolean;
  written: boolean;
  namespace: string;
  name: string;
}

/**
 * The order of an alias group's names, the one it is named by first (the
 * server's column view names a group by the same rule, services/columns.py):
 * a Feast object's, then a table's over its location's (a TABLE symlink
 * names it, or it names its files by a LOCATION one), then one an event wrote
 * (or declared) over one only read, then by namespace and name.
 */
function nameOrder(a: RankedName, b: RankedName): number {
  for (const key of ["feast", "table", "written"] as const) {
    if (a[key] !== b[key]) return a[key] ? -1 : 1;
  }
  if (a.namespace !== b.namespace) return a.namespace < b.namespace ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

class UnionFind {
  private parent = new Map<string, string>();
  find(x: string): string {
    let root = this.parent.get(x) ?? x;
    if (root === x) return x;
    root = this.find(root);
    this.parent.set(x, root);
    return root;
  }
  union(a: string, b: string): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent.set(ra, rb);
  }
}

export function index(nodes: LNode[], edges: LEdge[], drawnAs: Map<string, string>): LGraph {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const outgoing = new Map<string, LEdge[]>();
  const incoming = new Map<string, LEdge[]>();
  for (const edge of edges) {
    (outgoing.get(edge.source) ?? outgoing.set(edge.source, []).get(edge.source)!).push(edge);
    (incoming.get(edge.target) ?? incoming.set(edge.target, []).get(edge.target)!).push(edge);
  }
  return { nodes, edges, byId, drawnAs, outgoing, incoming };
}

class EdgeSet {
  readonly edges: LEdge[] = [];
  private byKey = new Map<string, LEdge>();
  add(source: string, target: string, kind: EdgeKind, origin?: string | null, runs?: number): void {
    if (source === target) return;
    const key = `${source}\u0000${target}`;
    const known = this.byKey.get(key);
    if (known) {
      if (runs !== undefined) known.runs = Math.max(known.runs ?? 0, runs);
      if (origin && !(known.origin ?? "").split(", ").includes(origin)) {
        known.origin = [known.origin, origin].filter(Boolean).sort().join(", ");
      }
      return;
    }
    const edge: LEdge = { id: `${kind}:${key}`, source, target, kind };
    if (origin) edge.origin = origin;
    if (runs !== undefined) edge.runs = runs;
    this.byKey.set(key, edge);
    this.edges.push(edge);
  }
}

export function fromOpenLineage(
  input: OpenLineageInput,
  options: {
    jobs: JobsShown;
    keep?: string | null;
    runCounts?: boolean;
    /**
     * Child jobs' own names known from elsewhere (childJobNames of the whole graph): a
     * focused graph without a job's parent edge (its parent not drawn) still knows it.
     */
    ownNames?: ReadonlyMap<string, string>;
  },
): LGraph {
  const apiNodes = new Map(input.nodes.map((n) => [n.id, n]));
  const groups = new UnionFind();
  const aliasInfo = new Map<string, Alias>();
  const ownerVia = new Map<string, Alias["via"]>();
  const tables = new Set<string>();
  for (const link of input.symlinks) {
    if (!apiNodes.has(link.dataset)) continue;
    groups.union(link.alias, link.dataset);
    aliasInfo.set(link.alias, {
      id: link.alias,
      namespace: link.alias_namespace,
      name: link.alias_name,
      type: link.alias_type,
      via: link.source,
    });
    ownerVia.set(link.dataset, link.source);
    const type = link.source === "symlink" ? link.alias_type?.toUpperCase() : null;
    if (type === "TABLE") tables.add(link.alias);
    else if (type === "LOCATION") tables.add(link.dataset);
  }
  const ranked = (id: string): RankedName => {
    const node = apiNodes.get(id);
    const named = node ?? aliasInfo.get(id) ?? aliasFor(id, undefined, aliasInfo, ownerVia);
    return {
      id,
      feast: !!node?.feast?.type,
      table: tables.has(id),
      written: node?.written ?? false,
      namespace: named.namespace,
      name: named.name,
    };
  };
  const firstName = (ids: string[]) => ids.map(ranked).sort(nameOrder)[0]?.id ?? null;
  // Members of each alias group (only groups with more than one id matter).
  const members = new Map<string, string[]>();
  const touched = new Set<string>([
    ...input.symlinks.map((l) => l.alias),
    ...input.symlinks.map((l) => l.dataset),
  ]);
  for (const id of touched) {
    const root = groups.find(id);
    (members.get(root) ?? members.set(root, []).get(root)!).push(id);
  }

  const drawnAs = new Map<string, string>();
  const namedAs = new Map<string, Alias>(); // a drawn node named by a name only a symlink gives
  const sameEdges: [string, string][] = [];
  const aliasesOf = new Map<string, Alias[]>();
  const groupMembers = new Map<string, string[]>();
  const alias = (id: string) => aliasFor(id, apiNodes.get(id), aliasInfo, ownerVia);
  // One node for `ids`: drawn as the first stored one, named by the first of all.
  const drawOne = (ids: string[]): string | null => {
    const rep = firstName(ids.filter((id) => apiNodes.has(id)));
    if (!rep) return null;
    const named = firstName(ids) ?? rep;
    if (named !== rep) namedAs.set(rep, alias(named));
    for (const id of ids) drawnAs.set(id, rep);
    groupMembers.set(rep, ids);
    aliasesOf.set(rep, ids.filter((id) => id !== named).map(alias));
    return rep;
  };
  for (const ids of members.values()) {
    ids.sort();
    const feast = ids.filter((id) => apiNodes.get(id)?.feast?.type);
    if (feast.length <= 1) {
      drawOne(ids);
      continue;
    }
    for (const id of feast) drawnAs.set(id, id);
    const others = ids.filter((id) => !feast.includes(id));
    const rep = drawOne(others);
    if (rep) {
      for (const id of feast) sameEdges.push([rep, id]);
    } else {
      for (let i = 1; i < feast.length; i++) sameEdges.push([feast[i - 1], feast[i]]);
      for (const id of others) drawnAs.set(id, feast[0]);
    }
  }

  const hidden = new Set<string>();
  for (const node of input.nodes) {
    if (node.kind !== "job" || node.id === options.keep) continue;
    if (options.jobs === "none" || (options.jobs === "runtime" && isDefinitionJob(node))) hidden.add(node.id);
  }

  const ownNames = childJobNames(input.edges);
  // Thousands of nodes share a few producers: each one's label is made once.
  const producers = new Map<string | null | undefined, string>();
  const producerOf = (producer: string | null | undefined) => {
    let label = producers.get(producer);
    if (label === undefined) {
      label = producerLabel(producer);
      producers.set(producer, label);
    }
    return label;
  };
  const nodes: LNode[] = [];
  for (const node of input.nodes) {
    const rep = drawnAs.get(node.id) ?? node.id;
    if (rep !== node.id || hidden.has(node.id)) continue;
    drawnAs.set(node.id, node.id);
    const named = namedAs.get(node.id);
    const label = named ? nameLabel(named.name) : olLabel(node);
    const own = label === node.name ? (ownNames.get(node.id) ?? options.ownNames?.get(node.id)) : undefined;
    nodes.push({
      id: node.id,
      kind: olKind(node),
      label,
      ...(own ? { own } : {}),
      title: `${(named ?? node).name}\n${(named ?? node).namespace}`,
      sublabel: (named ?? node).namespace,
      producer: producerOf(node.producer),
      state: runState(node.latest_run_state),
      aliases: aliasesOf.get(node.id) ?? [],
      ...(named ? { named } : {}),
      members: groupMembers.get(node.id) ?? [node.id],
      source: "openlineage",
      ol: node,
    });
  }

  const drawn = (id: string) => {
    const rep = drawnAs.get(id) ?? id;
    return apiNodes.has(rep) && !hidden.has(rep) ? rep : null;
  };
  const edges = new EdgeSet();
  for (const edge of input.edges) {
    // Derived edges (Feast's shape) are drawn from derived_edges, which names the job.
    if (edge.type === "symlink" || edge.type === "root" || edge.type === "derived") continue;
    const s = drawn(edge.source);
    const t = drawn(edge.target);
    const kind = edge.type === "parent" ? "parent" : edge.type === "job_to_job" ? "jobjob" : "io";
    if (s && t) edges.add(s, t, kind, edge.origin, options.runCounts ? edge.run_count : undefined);
  }
  if (hidden.size) {
    for (const edge of input.derived_edges) {
      if (!hidden.has(edge.via)) continue;
      const s = drawn(edge.source);
      const t = drawn(edge.target);
      if (s && t) edges.add(s, t, "derived");
    }
  }
  for (const [s, t] of sameEdges) edges.add(s, t, "same");
  return index(nodes, edges.edges, drawnAs);
}

/**
 * Child jobs' own names by id: a job a parent edge names "<parent>.<own>"
 * (the parent's name, a dot, then its own), the shortest when several do.
 */
export function childJobNames(edges: GraphEdge[]): Map<string, string> {
  const own = new Map<string, string>();
  for (const edge of edges) {
    if (edge.type !== "parent" || edge.source_type !== "job" || edge.target_type !== "job") continue;
    const prefix = `${edge.source_name}.`;
    const name = edge.target_name;
    if (name.length <= prefix.length || !name.startsWith(prefix)) continue;
    const rest = name.slice(prefix.length);
    if (rest.length < (own.get(edge.target) ?? name).length) own.set(edge.target, rest);
  }
  return own;
}

function aliasFor(
  id: string,
  node: GraphNode | undefined,
  info: Map<string, Alias>,
  ownerVia: Map<string, Alias["via"]>,
): Alias {
  const known = info.get(id);
  if (known) return node ? { ...known, node } : known;
  if (node) {
    const via = ownerVia.get(id) ?? "datasource";
    return { id, namespace: node.namespace, name: node.name, type: null, via, node };
  }
  const [, namespace = "", name = id] = /^dataset:(.*?):(.*)$/.exec(id) ?? [];
  return { id, namespace, name, type: null, via: "symlink" };
}

export function fromRegistry(lineage: RegistryLineage): LGraph {
  const nodes: LNode[] = lineage.nodes.map((node) => ({
    id: node.id,
    kind: node.missing ? "missing" : isVisualKind(node.type) ? node.type : "dataset",
    label: node.name,
    title: `${node.name}\n${node.type} in project ${node.project}`,
    sublabel: node.project,
    producer: "feast registry",
    state: null,
    aliases: [],
    members: [node.id],
    source: "registry",
    reg: node,
  }));
  const ids = new Set(nodes.map((n) => n.id));
  const edges = new EdgeSet();
  for (const edge of lineage.edges) {
    if (ids.has(edge.source) && ids.has(edge.target)) edges.add(edge.source, edge.target, "registry");
  }
  return index(nodes, edges.edges, new Map(nodes.map((n) => [n.id, n.id])));
}

/** The ids reachable from `start` (itself included), following edges one way. */
export function reach(
  graph: LGraph,
  start: string,
  direction: "upstream" | "downstream",
  maxDepth = Infinity,
): Set<string> {
  const seen = new Set<string>([start]);
  let frontier = [start];
  for (let depth = 0; depth < maxDepth && frontier.length; depth++) {
    const next: string[] = [];
    for (const id of frontier) {
      const list = direction === "downstream" ? graph.outgoing.get(id) : graph.incoming.get(id);
      for (const edge of list ?? []) {
        const other = direction === "downstream" ? edge.target : edge.source;
        if (!seen.has(other)) {
          seen.add(other);
          next.push(other);
        }
      }
    }
    frontier = next;
  }
  return seen;
}

/** The nodes within `depth` steps of `center` (as drawn) and the edges among them. */
export function neighbourhood(
  graph: LGraph,
  center: string,
  depth: number,
  direction: "upstream" | "downstream" | "both",
): LGraph {
  const keep = new Set<string>();
  if (direction !== "downstream") for (const id of reach(graph, center, "upstream", depth)) keep.add(id);
  if (direction !== "upstream") for (const id of reach(graph, center, "downstream", depth)) keep.add(id);
  keep.add(center);
  const nodes = graph.nodes.filter((n) => keep.has(n.id));
  const edges = graph.edges.filter((e) => keep.has(e.source) && keep.has(e.target));
  return index(nodes, edges, graph.drawnAs);
}

/** The upstream and downstream closure of a node: what hovering it lights up. */
export function connectedPath(graph: LGraph, id: string): { nodes: Set<string>; edges: Set<string> } {
  const up = reach(graph, id, "upstream");
  const down = reach(graph, id, "downstream");
  const nodes = new Set([...up, ...down]);
  const edges = new Set<string>();
  for (const edge of graph.edges) {
    if ((up.has(edge.source) && up.has(edge.target)) || (down.has(edge.source) && down.has(edge.target))) {
      edges.add(edge.id);
    }
  }
  return { nodes, edges };
}
