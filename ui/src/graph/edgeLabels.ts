// The words on an edge ("2 runs" seen during a window, "added" or "removed"
// since an earlier instant) and where they go.
//
// A label sits on its own edge, near one of its ends: on a part the edge has
// to itself (a lane through a layer, a gap between two layers) next to its
// target or its source, or on its turn into its target or out of its source
// (an edge folded from one row to the next: its lane back left runs in a
// bundle with the others', no place for a label). Each part offers a few
// places along it (labelPlaces); of those that cover no node's text, no
// node's change and no label placed before it, a label takes the one that
// fewest other edges cross (the first of equals), so it reads as its own
// edge's (none free: the one that covers fewest; a part far from both ends
// only when no near one is free). Labels are drawn over the nodes (EdgeNotes.tsx, paint.ts),
// so one wider than the gap between two layers may lie over a node's border,
// never under it. Sizes are taken at the largest scale labels are drawn at
// (viewport.ts, labelScale), so labels placed apart stay apart at every zoom.

import { TURN, type Point } from "./layered";
import { font, measure } from "./labels";
import { CHANGE_LABELS, changeText, type LEdge, type LGraph } from "./model";

/** The text size of edge labels and of the change beside a node, at scale 1 (graph units). */
export const NOTE_PX = 11;
export const NOTE_WEIGHT = 600;
/** A label's box around its text (graph units, at scale 1). */
const PAD_X = 3;
export const NOTE_HEIGHT = 15;
/** How far into a node's box a label may reach: its border and padding (styles.css, .lnode). */
const INTO_NODE = { x: 10, y: 3 };
/** The change beside a node (styles.css, .lnode-change): its text, padding, height and place over the node. */
const CHANGE = { px: 11, weight: 700, pad: 6, height: 13, left: 8, over: 3 };

/** An edge's words: a window's run count, a change; "" for none (never told by colour alone). */
export function edgeWords(edge: Pick<LEdge, "runs" | "change">): string {
  const runs = edge.runs !== undefined ? `${edge.runs} run${edge.runs === 1 ? "" : "s"}` : "";
  return [runs, edge.change ? CHANGE_LABELS[edge.change] : ""].filter(Boolean).join(" · ");
}

/** The width of a label's box at scale 1 (graph units). */
export function noteWidth(words: string): number {
  return measure(words, font(NOTE_WEIGHT, NOTE_PX)) + 2 * PAD_X;
}

function cubic(a: Point, c1: Point, c2: Point, b: Point, t: number): Point {
  const u = 1 - t;
  const w = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
  return {
    x: w[0] * a.x + w[1] * c1.x + w[2] * c2.x + w[3] * b.x,
    y: w[0] * a.y + w[1] * c1.y + w[2] * c2.y + w[3] * b.y,
  };
}

/** Where along its parts, of each part that offers some: the middle first. */
const ALONG = [0.5, 0.3, 0.7];
/** A turn runs beside others' turns: more places along it, to find one fewer cross. */
const TURN_ALONG = [0.5, 0.35, 0.65, 0.2, 0.8];
/** How far apart (graph units) the points are that tell which edges cross a label… */
const SAMPLE_STEP = 8;
/** …at most so many a part (a fan of long edges would make millions): a long part is told less surely. */
const MAX_SAMPLES = 64;

/** A curve across the gap between two layers, as drawn (routePath; React Flow's bezier edges alike). */
function across(a: Point, b: Point, t: number): Point {
  const mid = (a.x + b.x) / 2;
  return cubic(a, { x: mid, y: a.y }, { x: mid, y: b.y }, b, t);
}

/** A folded edge's turn from `a` to `b` (routePath), `next` the point after `b`. */
function turn(a: Point, b: Point, next: Point | undefined, t: number): Point {
  const x = next && next.x < b.x ? a.x + TURN : a.x - TURN;
  return cubic(a, { x, y: a.y }, { x, y: b.y }, b, t);
}

/** Points along an edge as drawn, about every `step` graph units: what it crosses. */
function samples(points: Point[], routed: boolean, step: number): Point[] {
  const out: Point[] = [points[0]];
  const last = routed ? points.length : 2;
  for (let i = 1; i < last; i++) {
    const a = points[i - 1];
    const b = routed ? points[i] : points[points.length - 1];
    const count = Math.min(MAX_SAMPLES, Math.max(2, Math.ceil((Math.abs(b.x - a.x) + Math.abs(b.y - a.y)) / step)));
    for (let k = 1; k <= count; k++) {
      const t = k / count;
      if (!routed || (a.x !== b.x && a.y !== b.y)) out.push(across(a, b, t));
      else if (a.y === b.y) out.push({ x: a.x + (b.x - a.x) * t, y: a.y });
      else out.push(turn(a, b, points[i + 1], t));
    }
  }
  return out;
}

/** A place a label may go, and whether it is near one of the edge's ends. */
export interface Place {
  at: Point;
  near: boolean;
}

/**
 * The places an edge's label may go, best first (elements.tsx's routePath
 * draws the same parts; `points` of an edge with no route: its two ends).
 * Near its ends: the two parts of its own (lanes through a layer, gaps
 * between layers) nearest its target in the target's row, the two nearest
 * its source in the source's row, its turn into its target and out of its
 * source. Then its other parts. A fold's lane back left, in a bundle with
 * the others', is no place.
 */
export function labelPlaces(points: Point[], routed: boolean): Place[] {
  if (!routed || points.length < 2) {
    const [a, b] = [points[0], points[points.length - 1]];
    return ALONG.map((t) => ({ at: across(a, b, t), near: true }));
  }
  const own: { index: number; places: Point[] }[] = [];
  const turns: { index: number; places: Point[] }[] = [];
  const folds: number[] = [];
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (a.y === b.y) {
      if (b.x > a.x) own.push({ index: i, places: ALONG.map((t) => ({ x: a.x + (b.x - a.x) * t, y: a.y })) });
      else folds.push(i);
    } else if (a.x === b.x) {
      turns.push({ index: i, places: TURN_ALONG.map((t) => turn(a, b, points[i + 1], t)) });
    } else if (b.x > a.x) {
      own.push({ index: i, places: ALONG.map((t) => across(a, b, t)) });
    }
  }
  const lastFold = folds.length ? folds[folds.length - 1] : -1;
  const firstFold = folds.length ? folds[0] : points.length;
  const byTarget = own.filter((part) => part.index > lastFold).reverse().slice(0, 2);
  const bySource = own.filter((part) => part.index < firstFold).slice(0, 2);
  const atEnds = turns.filter((part) => part.index === points.length - 1 || part.index === 1);
  const near = new Set([...byTarget, ...bySource, ...atEnds]);
  const rest = [...own, ...turns].filter((part) => !near.has(part));
  return [
    ...[...near].flatMap((part) => part.places.map((at) => ({ at, near: true }))),
    ...rest.flatMap((part) => part.places.map((at) => ({ at, near: false }))),
  ];
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Points of the edges on a grid of cells, to tell which edges cross a box. */
class PointGrid {
  private cells = new Map<string, { x: number; y: number; edge: string }[]>();
  constructor(private readonly cell: number) {}
  add(p: Point, edge: string): void {
    const key = `${Math.floor(p.x / this.cell)},${Math.floor(p.y / this.cell)}`;
    const list = this.cells.get(key);
    if (list) list.push({ x: p.x, y: p.y, edge });
    else this.cells.set(key, [{ x: p.x, y: p.y, edge }]);
  }
  /** How many edges other than `own` have a point inside `box`. */
  crossing(box: Box, own: string): number {
    const edges = new Set<string>();
    for (let x = Math.floor(box.left / this.cell); x <= Math.floor(box.right / this.cell); x++) {
      for (let y = Math.floor(box.top / this.cell); y <= Math.floor(box.bottom / this.cell); y++) {
        for (const p of this.cells.get(`${x},${y}`) ?? []) {
          if (p.edge !== own && p.x > box.left && p.x < box.right && p.y > box.top && p.y < box.bottom) edges.add(p.edge);
        }
      }
    }
    return edges.size;
  }
}

/** Boxes on a grid of cells, to find those a box overlaps without looking at all. */
class Grid {
  private cells = new Map<string, Box[]>();
  constructor(private readonly cell: number) {}
  private keys(box: Box): string[] {
    const keys: string[] = [];
    for (let x = Math.floor(box.left / this.cell); x <= Math.floor(box.right / this.cell); x++) {
      for (let y = Math.floor(box.top / this.cell); y <= Math.floor(box.bottom / this.cell); y++) keys.push(`${x},${y}`);
    }
    return keys;
  }
  add(box: Box): void {
    for (const key of this.keys(box)) {
      const list = this.cells.get(key);
      if (list) list.push(box);
      else this.cells.set(key, [box]);
    }
  }
  /** How many boxes `box` overlaps. */
  hits(box: Box): number {
    const seen = new Set<Box>();
    for (const key of this.keys(box)) {
      for (const other of this.cells.get(key) ?? []) {
        if (box.left < other.right && box.right > other.left && box.top < other.bottom && box.bottom > other.top) seen.add(other);
      }
    }
    return seen.size;
  }
}

/**
 * Where each labelled edge's words go (the centre of the label), by edge id.
 * `size`: the nodes' width and height; `scale`: the largest scale labels are drawn at.
 */
/** An edge's points as drawn: its route, else a straight line from the source's right
 *  side to the target's left (``routed`` false: the painter bends it). */
export function edgePath(
  s: Point,
  t: Point,
  route: Point[] | undefined,
  size: { width: number; height: number },
): { points: Point[]; routed: boolean } {
  if (route && route.length >= 2) return { points: route, routed: true };
  return {
    points: [
      { x: s.x + size.width, y: s.y + size.height / 2 },
      { x: t.x, y: t.y + size.height / 2 },
    ],
    routed: false,
  };
}

export function placeEdgeLabels(
  graph: LGraph,
  positions: Map<string, Point>,
  routes: Map<string, Point[]>,
  size: { width: number; height: number },
  scale: number,
): Map<string, Point> {
  const placed = new Map<string, Point>();
  const labelled = graph.edges.filter((e) => e.runs !== undefined || e.change);
  if (labelled.length === 0) return placed;
  const grid = new Grid(256);
  for (const node of graph.nodes) {
    const p = positions.get(node.id);
    if (!p) continue;
    grid.add({ left: p.x + INTO_NODE.x, top: p.y + INTO_NODE.y, right: p.x + size.width - INTO_NODE.x, bottom: p.y + size.height - INTO_NODE.y });
    const mark = changeText(node);
    if (mark) {
      const width = measure(`${mark.icon} ${mark.words}`, font(CHANGE.weight, CHANGE.px)) + 2 * CHANGE.pad;
      const bottom = p.y + CHANGE.over;
      grid.add({ left: p.x + CHANGE.left, top: bottom - CHANGE.height * scale, right: p.x + CHANGE.left + width * scale, bottom });
    }
  }
  // Every edge as drawn (the labelled ones' places too).
  const drawn = new Map<string, { points: Point[]; routed: boolean }>();
  const lines = new PointGrid(128);
  for (const edge of graph.edges) {
    const s = positions.get(edge.source);
    const t = positions.get(edge.target);
    if (!s || !t) continue;
    const { points, routed } = edgePath(s, t, routes.get(edge.id), size);
    drawn.set(edge.id, { points, routed });
    for (const p of samples(points, routed, SAMPLE_STEP)) lines.add(p, edge.id);
  }
  for (const edge of labelled) {
    const path = drawn.get(edge.id);
    if (!path) continue;
    const places = labelPlaces(path.points, path.routed);
    const halfW = (noteWidth(edgeWords(edge)) * scale) / 2;
    const halfH = (NOTE_HEIGHT * scale) / 2;
    const boxAt = (p: Point): Box => ({ left: p.x - halfW, top: p.y - halfH, right: p.x + halfW, bottom: p.y + halfH });
    // Fewest covered (nodes, changes, labels), then near an end, then fewest other edges
    // crossing; the first of equals.
    let chosen = places[0].at;
    let best = [Infinity, Infinity, Infinity];
    for (const place of places) {
      const box = boxAt(place.at);
      const cost = [grid.hits(box), place.near ? 0 : 1, lines.crossing(box, edge.id)];
      const i = cost.findIndex((value, k) => value !== best[k]);
      if (i >= 0 && cost[i] < best[i]) {
        chosen = place.at;
        best = cost;
      }
      if (cost.every((value) => value === 0)) break;
    }
    placed.set(edge.id, chosen);
    grid.add(boxAt(chosen));
  }
  return placed;
}
