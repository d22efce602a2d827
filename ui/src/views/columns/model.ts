// The column view's picture of a column lineage answer: each dataset a box
// listing its columns (the ones on the traced path first, the rest of its
// schema folded), each field edge drawn from one column row to another.
//
// Boxes are laid out left to right by the layered layout of the dataset
// graph (graph/layered.ts), with each box as tall as the rows it shows; an
// edge's ends are the rows' places, so no handle is measured per row.

import type { ColumnEdge, ColumnLineage, ColumnNode, ColumnTransformation } from "../../api/columns";
import { layeredLayout, type Point } from "../../graph/layered";
import { columnEdgeKey } from "../../history/changes";
import type { SchemaField } from "../../types";
import { fieldId, fromIdPart, nodeId } from "../../nodeId";

export const BOX_WIDTH = 280;
export const HEADER_HEIGHT = 52;
export const ROW_HEIGHT = 22;

export interface FieldRow {
  /** The answer's node id, or "rest:{field}" for a column not on the path. */
  id: string;
  /** null: the whole dataset (the output of dataset-level inputs). */
  field: string | null;
  type: string | null;
  /** On the traced path (in the answer). */
  onPath: boolean;
  /** The traced column itself. */
  traced: boolean;
}

export interface DatasetBox {
  id: string;
  namespace: string;
  name: string;
  aliases: { namespace: string; name: string }[];
  /** Rows on the path: the traced column, the whole dataset, then by name. */
  path: FieldRow[];
  /** The dataset's other columns (from its schema), folded unless opened. */
  rest: FieldRow[];
  /** Steps from the traced column (the nearest of its rows). */
  depth: number;
}

export interface FieldEdge {
  id: string;
  source: string;
  target: string;
  sourceBox: string;
  targetBox: string;
  indirect: boolean;
  transformations: ColumnTransformation[];
  job: { namespace: string; name: string } | null;
  runId: string | null;
  /** "Changes since…": added since the earlier instant, or removed (drawn faded). */
  change?: "added" | "removed";
}

/** "Changes since…" for the column view: the diff's column edges added (by columnEdgeKey) and removed. */
export interface ColumnChanges {
  added: ReadonlySet<string>;
  removed: readonly ColumnEdge[];
}

const pairKey = columnEdgeKey;

/** A field's or a whole dataset's id read back (a name and a field keep no ":" in an id). */
function parseColumnId(id: string): { kind: "field" | "dataset"; namespace: string; name: string; field: string } | null {
  const kind = id.startsWith("field:") ? "field" : id.startsWith("dataset:") ? "dataset" : null;
  if (!kind) return null;
  let rest = id.slice(kind.length + 1);
  let field = "";
  if (kind === "field") {
    const last = rest.lastIndexOf(":");
    if (last < 0) return null;
    field = fromIdPart(rest.slice(last + 1));
    rest = rest.slice(0, last);
  }
  const cut = rest.lastIndexOf(":");
  if (cut < 0) return null;
  return { kind, namespace: rest.slice(0, cut), name: fromIdPart(rest.slice(cut + 1)), field };
}

/**
 * "Changes since…" on the answer's datasets as it names them. The diff names
 * each column edge by the datasets the events named (a Feast object's file,
 * say), the answer by its alias groups (a group is named by one member,
 * docs/api.md): an end that is a member of one of the answer's groups is
 * named by its group, so the diff's edges are the answer's.
 */
export function onGroups(answer: ColumnLineage, changes: ColumnChanges): ColumnChanges {
  const group = new Map<string, { namespace: string; name: string }>();
  for (const n of answer.nodes) {
    for (const ref of [n, ...n.aliases]) {
      const key = boxId(ref.namespace, ref.name);
      if (!group.has(key)) group.set(key, { namespace: n.namespace, name: n.name });
    }
  }
  const named = (id: string): string => {
    const parsed = parseColumnId(id);
    const g = parsed && group.get(boxId(parsed.namespace, parsed.name));
    if (!parsed || !g) return id;
    return parsed.kind === "field" ? fieldId(g.namespace, g.name, parsed.field) : nodeId("dataset", g.namespace, g.name);
  };
  const added = new Set<string>();
  for (const key of changes.added) {
    const [source, target] = key.split("\u0000");
    added.add(pairKey({ source: named(source), target: named(target) }));
  }
  const removed = changes.removed.map((e) => ({ ...e, source: named(e.source), target: named(e.target) }));
  return { added, removed };
}

/**
 * The answer with the removed column edges that touch it: an edge one of
 * whose columns is on the path, the other column's dataset in the answer
 * (or in `datasets`, the lineage graph's) is drawn too, at its old place,
 * with that column as a row of its box.
 */
export function withRemoved(
  answer: ColumnLineage,
  removed: readonly ColumnEdge[],
  datasets: readonly { namespace: string; name: string }[] = [],
): ColumnLineage {
  if (removed.length === 0) return answer;
  const byId = new Map(answer.nodes.map((n) => [n.id, n]));
  const places = new Map<string, { namespace: string; name: string; aliases: ColumnNode["aliases"] }>();
  for (const d of datasets) places.set(fieldId(d.namespace, d.name, ""), { ...d, aliases: [] });
  for (const n of answer.nodes) places.set(fieldId(n.namespace, n.name, ""), n);
  const nodeFor = (id: string, depth: number): ColumnNode | null => {
    let best: string | null = null;
    for (const prefix of places.keys()) if (id.startsWith(prefix) && (!best || prefix.length > best.length)) best = prefix;
    if (!best) return null;
    const place = places.get(best)!;
    return { id, namespace: place.namespace, name: place.name, field: fromIdPart(id.slice(best.length)), type: null, depth, aliases: place.aliases };
  };
  const present = new Set(answer.edges.map(pairKey));
  const nodes = [...answer.nodes];
  const edges = [...answer.edges];
  for (const e of removed) {
    if (present.has(pairKey(e))) continue;
    const source = byId.get(e.source);
    const target = byId.get(e.target);
    if (!source && !target) continue;
    const made = source ? (target ? null : nodeFor(e.target, source.depth + 1)) : nodeFor(e.source, target!.depth + 1);
    if ((!source || !target) && !made) continue;
    if (made) {
      nodes.push(made);
      byId.set(made.id, made);
    }
    edges.push(e);
    present.add(pairKey(e));
  }
  return { ...answer, nodes, edges };
}

export interface ColumnPicture {
  boxes: DatasetBox[];
  byId: Map<string, DatasetBox>;
  edges: FieldEdge[];
  /** Node id -> its box. */
  boxOf: Map<string, string>;
  /** The jobs of the edges, each once, in order of first appearance. */
  jobs: { namespace: string; name: string }[];
}

/** Where the boxes' schemas come from: a dataset's fields by namespace and name, if known. */
export type SchemaLookup = (namespace: string, name: string) => SchemaField[] | null | undefined;

export function boxId(namespace: string, name: string): string {
  return `${namespace}\u0000${name}`;
}

function byField(a: FieldRow, b: FieldRow): number {
  if (a.traced !== b.traced) return a.traced ? -1 : 1;
  if ((a.field === null) !== (b.field === null)) return a.field === null ? -1 : 1;
  return (a.field ?? "").localeCompare(b.field ?? "");
}

export function buildPicture(answer: ColumnLineage, schemaOf: SchemaLookup, changes: ColumnChanges | null = null): ColumnPicture {
  const removed = new Set((changes?.removed ?? []).map(pairKey));
  const byId = new Map<string, DatasetBox>();
  const boxOf = new Map<string, string>();
  const asked = answer.dataset;
  for (const node of answer.nodes) {
    const id = boxId(node.namespace, node.name);
    let box = byId.get(id);
    if (!box) {
      box = { id, namespace: node.namespace, name: node.name, aliases: node.aliases, path: [], rest: [], depth: node.depth };
      byId.set(id, box);
    }
    box.depth = Math.min(box.depth, node.depth);
    box.path.push(rowOf(node, answer, asked));
    boxOf.set(node.id, id);
  }
  for (const box of byId.values()) {
    box.path.sort(byField);
    const shown = new Set(box.path.map((r) => r.field));
    const seen = new Set<string>();
    for (const ref of [box, ...box.aliases]) {
      for (const f of schemaOf(ref.namespace, ref.name) ?? []) {
        if (shown.has(f.name) || seen.has(f.name)) continue;
        seen.add(f.name);
        box.rest.push({ id: `rest:${box.id}:${f.name}`, field: f.name, type: f.type ?? null, onPath: false, traced: false });
      }
    }
    box.rest.sort(byField);
  }
  const edges: FieldEdge[] = [];
  const jobs = new Map<string, { namespace: string; name: string }>();
  for (const e of answer.edges) {
    const sourceBox = boxOf.get(e.source);
    const targetBox = boxOf.get(e.target);
    if (!sourceBox || !targetBox) continue;
    const edge = edgeOf(e, sourceBox, targetBox);
    if (changes?.added.has(pairKey(e))) edge.change = "added";
    else if (removed.has(pairKey(e))) edge.change = "removed";
    edges.push(edge);
    if (e.job) jobs.set(`${e.job.namespace}\u0000${e.job.name}`, e.job);
  }
  const boxes = [...byId.values()].sort((a, b) => a.depth - b.depth || a.name.localeCompare(b.name));
  return { boxes, byId, edges, boxOf, jobs: [...jobs.values()] };
}

function rowOf(node: ColumnNode, answer: ColumnLineage, asked: ColumnLineage["dataset"]): FieldRow {
  const traced =
    node.field !== null &&
    node.field === answer.field &&
    node.depth === 0 &&
    (node.namespace === asked.namespace && node.name === asked.name);
  return { id: node.id, field: node.field, type: node.type ?? null, onPath: true, traced };
}

function edgeOf(e: ColumnEdge, sourceBox: string, targetBox: string): FieldEdge {
  // The job by its node id (its name escaped, as the server's ids write it): two jobs never
  // give an edge one id.
  const job = e.job ? nodeId("job", e.job.namespace, e.job.name) : "event";
  return {
    id: `${e.source}>${e.target}>${job}`,
    source: e.source,
    target: e.target,
    sourceBox,
    targetBox,
    indirect: e.indirect,
    transformations: e.transformations,
    job: e.job,
    runId: e.run_id,
  };
}

/** The rows a box draws: its path, then (when open) the rest. */
export function shownRows(box: DatasetBox, open: boolean): FieldRow[] {
  return open ? [...box.path, ...box.rest] : box.path;
}

export function boxHeight(box: DatasetBox, open: boolean): number {
  const fold = box.rest.length > 0 ? 1 : 0;
  return HEADER_HEIGHT + (shownRows(box, open).length + fold) * ROW_HEIGHT + 6;
}

/** Each box's top-left corner, laid out left to right along the field edges. */
export function layoutBoxes(picture: ColumnPicture, open: ReadonlySet<string>): Map<string, Point> {
  const nodes = picture.boxes.map((box) => ({ id: box.id, width: BOX_WIDTH, height: boxHeight(box, open.has(box.id)) }));
  const seen = new Set<string>();
  const edges: { source: string; target: string }[] = [];
  for (const e of picture.edges) {
    const key = `${e.sourceBox}>${e.targetBox}`;
    if (e.sourceBox === e.targetBox || seen.has(key)) continue;
    seen.add(key);
    edges.push({ source: e.sourceBox, target: e.targetBox });
  }
  return layeredLayout(nodes, edges, { rankGap: 140, nodeGap: 28 }).positions;
}

/** Where a row's edges start (right side) or end (left side). */
export function rowAnchor(box: DatasetBox, at: Point, rowId: string, side: "in" | "out"): Point | null {
  const index = box.path.findIndex((r) => r.id === rowId);
  if (index < 0) return null;
  return {
    x: side === "out" ? at.x + BOX_WIDTH : at.x,
    y: at.y + HEADER_HEIGHT + index * ROW_HEIGHT + ROW_HEIGHT / 2,
  };
}

/** Text for a transformation: "DIRECT · AGGREGATION: avg(x)". */
export function describe(t: ColumnTransformation): string {
  const head = [t.type, t.subtype].filter(Boolean).join(" · ");
  const masked = t.masking ? " (masked)" : "";
  return t.description ? `${head}${masked}: ${t.description}` : `${head}${masked}`;
}
