// Painting a large graph on a <canvas>: nodes (shape, colour, text), edges
// (by kind), the lit path, the selection and the focus centre, at any zoom,
// as the DOM nodes and edges of a small graph look (elements.tsx,
// styles.css). Everything is drawn from the model: a node's look from its
// kind (KIND_STYLES), an edge's from its kind (EDGE_STYLES).
//
// A Scene is built once per layout (each node's place, each edge's path and
// bounds); painting then walks only what is inside the view, and batches
// strokes and text by style, as changing a canvas's style is what costs.

import {
  edgePath,
  edgeWords,
  NOTE_HEIGHT,
  NOTE_PX,
  NOTE_WEIGHT,
  noteWidth,
  placeEdgeLabels,
} from "./edgeLabels";
import { endEllipsis, measure } from "./labels";
import {
  font,
  LABEL_PX,
  NAME_PX,
  NODE_HEIGHT,
  NODE_WIDTH,
  nodeText,
  sharedNames,
  SUB_PX,
  TAG_PX,
  type NodeText,
} from "./elements";
import { paintHealth } from "./healthOverlay";
import { EDGE_SWATCHES, FAILURE_COLOR, KIND_STYLES, SELECT_COLOR, type KindStyle, type Shape } from "./kinds";
import { TURN, type Point } from "./layered";
import { changeText, type Change, type EdgeKind, type LEdge, type LGraph, type LNode, type RunState } from "./model";
import { labelScale, zoomLevel } from "./viewport";

export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** What is lit (highlight.ts's state). */
export interface Lit {
  nodes: Set<string> | null;
  edges: Set<string> | null;
  selected: string | null;
}

export interface EdgeStyle {
  color: string;
  dash: number[];
}

/** How each kind of edge is drawn (as styles.css draws the DOM's); a kind not listed draws as "io". */
export const EDGE_STYLES: Partial<Record<EdgeKind, EdgeStyle>> & { io: EdgeStyle } = EDGE_SWATCHES;
const NODE_SIZE = { width: NODE_WIDTH, height: NODE_HEIGHT };
const EDGE_WIDTH = 1.5; // screen pixels, at any zoom (non-scaling, as in the DOM)
// Red is for failure only: the lit path, the selection and the focus centre are indigo.
const LIT_COLOR = SELECT_COLOR;
const LIT_RING = "rgba(79, 70, 229, 0.3)";
const SELECTED_RING = "rgba(79, 70, 229, 0.6)";
const LIT_WIDTH = 2.5;
const ARROW = { length: 10, half: 5 }; // graph units, like React Flow's markers
const TEXT = "#0f172a";
const MUTED = "#64748b";
const ALIASES = "#0f766e";

/** Corner radii of each shape (styles.css, ".lnode.shape-*"). */
const RADII: Record<Shape, number | number[]> = {
  box: 6,
  pill: 30,
  round: 18,
  cylinder: [10, 10, 10, 10],
  tab: [2, 14, 2, 14],
};

interface SceneNode {
  node: LNode;
  x: number;
  y: number;
}

interface SceneEdge {
  edge: LEdge;
  /** A route's points (straight within a layer, curved across), or a curve's two ends. */
  points: Point[];
  routed: boolean;
  box: Box;
}

interface Texts extends NodeText {
  producer: string;
}

export interface Scene {
  nodes: SceneNode[];
  edges: SceneEdge[];
  whole: Box;
  /** Each node's text, shortened to fit, made when first drawn. */
  texts: Map<string, Texts>;
  /** Names more than one node has: those nodes say their kind in words. */
  shared: Set<string>;
  /** Where each labelled edge's words go (edgeLabels.ts), by edge id. */
  labels: Map<string, Point>;
}

function bend(a: Point, b: Point): number {
  return Math.max(30, Math.abs(b.x - a.x) / 2);
}

export function buildScene(graph: LGraph, positions: Map<string, Point>, routes: Map<string, Point[]>): Scene {
  const whole: Box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  const nodes: SceneNode[] = [];
  for (const node of graph.nodes) {
    const p = positions.get(node.id);
    if (!p) continue;
    nodes.push({ node, x: p.x, y: p.y });
    whole.left = Math.min(whole.left, p.x);
    whole.top = Math.min(whole.top, p.y);
    whole.right = Math.max(whole.right, p.x + NODE_WIDTH);
    whole.bottom = Math.max(whole.bottom, p.y + NODE_HEIGHT);
  }
  const edges: SceneEdge[] = [];
  for (const edge of graph.edges) {
    const s = positions.get(edge.source);
    const t = positions.get(edge.target);
    if (!s || !t) continue;
    const { points, routed } = edgePath(s, t, routes.get(edge.id), NODE_SIZE);
    const box: Box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
    for (const p of points) {
      box.left = Math.min(box.left, p.x);
      box.top = Math.min(box.top, p.y);
      box.right = Math.max(box.right, p.x);
      box.bottom = Math.max(box.bottom, p.y);
    }
    if (!routed) {
      const b = bend(points[0], points[1]);
      box.left = Math.min(box.left, points[1].x - b);
      box.right = Math.max(box.right, points[0].x + b);
    }
    edges.push({ edge, points, routed, box });
  }
  const size = { width: NODE_WIDTH, height: NODE_HEIGHT };
  const labels = placeEdgeLabels(graph, positions, routes, size, labelScale(0));
  return { nodes, edges, whole, texts: new Map(), shared: sharedNames(graph), labels };
}

function overlaps(a: Box, b: Box): boolean {
  return a.right >= b.left && a.left <= b.right && a.bottom >= b.top && a.top <= b.bottom;
}

function nodeInView(n: SceneNode, view: Box): boolean {
  return n.x + NODE_WIDTH > view.left && n.x < view.right && n.y + NODE_HEIGHT > view.top && n.y < view.bottom;
}

type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

function trace(ctx: Ctx, e: SceneEdge): void {
  const pts = e.points;
  ctx.moveTo(pts[0].x, pts[0].y);
  if (!e.routed) {
    const b = bend(pts[0], pts[1]);
    ctx.bezierCurveTo(pts[0].x + b, pts[0].y, pts[1].x - b, pts[1].y, pts[1].x, pts[1].y);
    return;
  }
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    if (a.y === b.y) ctx.lineTo(b.x, b.y);
    else if (a.x === b.x) {
      // A folded edge's turn (elements.tsx, routePath).
      const next = pts[i + 1];
      const x = next && next.x < b.x ? a.x + TURN : a.x - TURN;
      ctx.bezierCurveTo(x, a.y, x, b.y, b.x, b.y);
    } else {
      const mid = (a.x + b.x) / 2;
      ctx.bezierCurveTo(mid, a.y, mid, b.y, b.x, b.y);
    }
  }
}

function arrow(ctx: Ctx, e: SceneEdge): void {
  const end = e.points[e.points.length - 1];
  ctx.moveTo(end.x, end.y);
  ctx.lineTo(end.x - ARROW.length, end.y - ARROW.half);
  ctx.lineTo(end.x - ARROW.length, end.y + ARROW.half);
  ctx.closePath();
}

function paintEdges(ctx: Ctx, scene: Scene, lit: Lit, zoom: number, view: Box): void {
  const dimmed = lit.nodes !== null;
  const arrows = zoomLevel(zoom) !== "far";
  const byStyle = new Map<EdgeStyle, SceneEdge[]>();
  const onPath: SceneEdge[] = [];
  for (const e of scene.edges) {
    if (!overlaps(e.box, view)) continue;
    if (dimmed && lit.edges?.has(e.edge.id)) {
      onPath.push(e);
      continue;
    }
    const style = EDGE_STYLES[e.edge.kind] ?? EDGE_STYLES.io;
    const list = byStyle.get(style);
    if (list) list.push(e);
    else byStyle.set(style, [e]);
  }
  ctx.lineWidth = EDGE_WIDTH / zoom;
  ctx.globalAlpha = dimmed ? 0.15 : 1;
  for (const [style, list] of byStyle) {
    ctx.strokeStyle = style.color;
    ctx.fillStyle = style.color;
    ctx.setLineDash(style.dash.map((d) => d / zoom));
    ctx.beginPath();
    for (const e of list) trace(ctx, e);
    ctx.stroke();
    if (arrows) {
      ctx.beginPath();
      for (const e of list) arrow(ctx, e);
      ctx.fill();
    }
  }
  ctx.setLineDash([]);
  if (onPath.length) {
    ctx.globalAlpha = 1;
    ctx.strokeStyle = LIT_COLOR;
    ctx.fillStyle = LIT_COLOR;
    ctx.lineWidth = LIT_WIDTH / zoom;
    ctx.beginPath();
    for (const e of onPath) trace(ctx, e);
    ctx.stroke();
    if (arrows) {
      ctx.beginPath();
      for (const e of onPath) arrow(ctx, e);
      ctx.fill();
    }
  }
  ctx.globalAlpha = 1;
}

function textsOf(scene: Scene, node: LNode, style: KindStyle): Texts {
  let texts = scene.texts.get(node.id);
  if (!texts) {
    const pad = style.shape === "pill" ? 20 : 10;
    const badge = measure(style.label.toUpperCase(), font(700, 9)) + 10;
    const room = NODE_WIDTH - 4 - 2 * pad - badge - 6;
    texts = { ...nodeText(node, scene.shared.has(node.label)), producer: node.producer ? endEllipsis(node.producer, room, font(400, SUB_PX)) : "" };
    scene.texts.set(node.id, texts);
  }
  return texts;
}

function shapePath(ctx: Ctx, n: SceneNode, shape: Shape, inset: number): void {
  ctx.roundRect(n.x + inset, n.y + inset, NODE_WIDTH - 2 * inset, NODE_HEIGHT - 2 * inset, RADII[shape]);
}

/** Paints the nodes and edges inside `view` (graph units); returns how many nodes. */
export function paintScene(ctx: Ctx, scene: Scene, lit: Lit, center: string | null, zoom: number, view: Box): number {
  paintEdges(ctx, scene, lit, zoom, view);
  const dimmed = lit.nodes !== null;
  const level = zoomLevel(zoom);
  const shown = scene.nodes.filter((n) => nodeInView(n, view));
  const isOn = (n: SceneNode) => !dimmed || (lit.nodes?.has(n.node.id) ?? false);
  const alpha = (n: SceneNode) => (isOn(n) ? 1 : 0.25);

  if (level === "far") {
    // Only colour: one path per kind and brightness.
    const groups = new Map<string, SceneNode[]>();
    for (const n of shown) {
      const key = `${n.node.kind}|${isOn(n) ? 1 : 0}`;
      const list = groups.get(key);
      if (list) list.push(n);
      else groups.set(key, [n]);
    }
    for (const [key, list] of groups) {
      const [kind, on] = key.split("|");
      const style = KIND_STYLES[kind as LNode["kind"]];
      ctx.globalAlpha = on === "1" ? 1 : 0.2;
      ctx.beginPath();
      for (const n of list) ctx.rect(n.x, n.y, NODE_WIDTH, NODE_HEIGHT);
      ctx.fillStyle = style.fill;
      ctx.fill();
      ctx.lineWidth = Math.max(2, 1.5 / zoom);
      ctx.strokeStyle = style.color;
      ctx.stroke();
    }
  } else {
    ctx.lineWidth = 2;
    for (const n of shown) {
      const style = KIND_STYLES[n.node.kind];
      ctx.globalAlpha = alpha(n);
      ctx.beginPath();
      shapePath(ctx, n, style.shape, 1);
      ctx.fillStyle = style.fill;
      ctx.fill();
      ctx.strokeStyle = style.color;
      ctx.stroke();
      if (style.shape === "cylinder") {
        ctx.beginPath();
        ctx.moveTo(n.x + 8, n.y + 2.5);
        ctx.lineTo(n.x + NODE_WIDTH - 8, n.y + 2.5);
        ctx.lineWidth = 5;
        ctx.stroke();
        ctx.lineWidth = 2;
      }
    }
    paintText(ctx, scene, shown, level, alpha);
  }

  paintRunStates(ctx, shown, alpha, zoom);
  paintHealth(ctx, shown, alpha, zoom);
  paintChanges(ctx, scene, shown, zoom, view);
  if (level !== "far") paintEdgeNotes(ctx, scene, lit, zoom, view);

  // The lit path's ring, the selection and the focus centre, over the nodes.
  ctx.globalAlpha = 1;
  if (dimmed) {
    ctx.strokeStyle = LIT_RING;
    ctx.lineWidth = 2;
    ctx.beginPath();
    for (const n of shown) if (isOn(n)) shapePath(ctx, n, KIND_STYLES[n.node.kind].shape, -1);
    ctx.stroke();
  }
  for (const n of shown) {
    if (n.node.id === lit.selected) {
      const pad = Math.max(3, 6 / zoom);
      ctx.strokeStyle = level === "far" ? LIT_COLOR : SELECTED_RING;
      ctx.lineWidth = Math.max(4, 4 / zoom);
      ctx.beginPath();
      ctx.roundRect(n.x - pad, n.y - pad, NODE_WIDTH + 2 * pad, NODE_HEIGHT + 2 * pad, 8);
      ctx.stroke();
    }
    if (n.node.id === center) {
      ctx.strokeStyle = LIT_COLOR;
      ctx.lineWidth = 3;
      ctx.setLineDash([6, 4]);
      ctx.strokeRect(n.x - 4.5, n.y - 4.5, NODE_WIDTH + 9, NODE_HEIGHT + 9);
      ctx.setLineDash([]);
    }
  }
  return shown.length;
}

/** "Changes since…" (styles.css's .change-*): added green, removed red (faded, dashed), a changed schema amber. */
const CHANGE_COLORS: Record<Change, string> = { added: "#16a34a", removed: "#dc2626", changed: "#d97706" };

/** Changed edges over the others, and each changed node ringed, faded when removed, and labelled in words. */
function paintChanges(ctx: Ctx, scene: Scene, shown: SceneNode[], zoom: number, view: Box): void {
  ctx.globalAlpha = 1;
  ctx.lineWidth = Math.max(3, 3 / zoom);
  for (const change of ["added", "removed"] as const) {
    ctx.strokeStyle = CHANGE_COLORS[change];
    ctx.setLineDash(change === "removed" ? [8 / zoom, 5 / zoom] : []);
    ctx.beginPath();
    for (const e of scene.edges) if (e.edge.change === change && overlaps(e.box, view)) trace(ctx, e);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  const changed = shown.filter((n) => n.node.change);
  if (changed.length === 0) return;
  ctx.fillStyle = "rgba(255, 255, 255, 0.55)";
  for (const n of changed) if (n.node.change === "removed") ctx.fillRect(n.x, n.y, NODE_WIDTH, NODE_HEIGHT);
  ctx.lineWidth = Math.max(4, 4 / zoom);
  for (const n of changed) {
    const change = n.node.change!;
    ctx.strokeStyle = CHANGE_COLORS[change];
    ctx.setLineDash(change === "removed" ? [10, 6] : []);
    ctx.beginPath();
    ctx.roundRect(n.x - 5, n.y - 5, NODE_WIDTH + 10, NODE_HEIGHT + 10, 8);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  // The change in words above the node, large enough to read at every zoom.
  const size = Math.max(11, 11 / zoom);
  ctx.font = font(700, size);
  for (const n of changed) {
    ctx.fillStyle = CHANGE_COLORS[n.node.change!];
    const mark = changeText(n.node)!;
    ctx.fillText(`${mark.icon} ${mark.words}`, n.x, n.y - 8);
  }
}

/** Words on edges (styles.css's .ledge-note): a window's run counts, a change, scaled as in the DOM. */
function paintEdgeNotes(ctx: Ctx, scene: Scene, lit: Lit, zoom: number, view: Box): void {
  if (scene.labels.size === 0) return;
  const scale = labelScale(zoom);
  const height = NOTE_HEIGHT * scale;
  ctx.font = font(NOTE_WEIGHT, NOTE_PX * scale);
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  for (const e of scene.edges) {
    const at = scene.labels.get(e.edge.id);
    if (!at) continue;
    const words = edgeWords(e.edge);
    const width = noteWidth(words) * scale;
    const box = { left: at.x - width / 2, top: at.y - height / 2, right: at.x + width / 2, bottom: at.y + height / 2 };
    if (!overlaps(box, view)) continue;
    ctx.globalAlpha = lit.nodes === null || lit.edges?.has(e.edge.id) ? 1 : 0.25;
    ctx.fillStyle = "#fff";
    ctx.beginPath();
    ctx.roundRect(box.left, box.top, width, height, 3 * scale);
    ctx.fill();
    ctx.fillStyle = e.edge.change ? NOTE_COLORS[e.edge.change] : NOTE_TEXT;
    ctx.fillText(words, at.x, at.y);
  }
  ctx.globalAlpha = 1;
  ctx.textAlign = "left";
}

/** The colour of an edge's words (styles.css's .ledge-note). */
const NOTE_TEXT = "#334155";
const NOTE_COLORS: Record<Change, string> = { added: "#15803d", removed: "#b91c1c", changed: "#b45309" };

/** The colours of a job's latest run state (styles.css's .lnode-state). */
const RUN_STATE_COLORS: Record<RunState, string> = {
  completed: "#16a34a",
  failed: FAILURE_COLOR,
  running: "#2563eb",
  aborted: "#d97706",
};

/** A job's latest run state: a dot in its corner, and a failed job ringed in red at every zoom. */
function paintRunStates(ctx: Ctx, shown: SceneNode[], alpha: (n: SceneNode) => number, zoom: number): void {
  for (const n of shown) {
    const state = n.node.state;
    if (!state) continue;
    ctx.globalAlpha = alpha(n);
    ctx.fillStyle = RUN_STATE_COLORS[state];
    ctx.beginPath();
    ctx.arc(n.x + NODE_WIDTH - 9, n.y + NODE_HEIGHT - 9, 4.5, 0, 2 * Math.PI);
    ctx.fill();
    if (state === "failed") {
      ctx.strokeStyle = RUN_STATE_COLORS.failed;
      ctx.lineWidth = Math.max(2, 2 / zoom);
      ctx.beginPath();
      shapePath(ctx, n, KIND_STYLES[n.node.kind].shape, -2);
      ctx.stroke();
    }
  }
  ctx.globalAlpha = 1;
}

/**
 * The nodes' text, one font at a time: near, the kind badge and producer,
 * the name and the namespace (as the DOM node's three lines); zoomed out, the
 * name alone, larger, on up to two lines.
 */
function paintText(
  ctx: Ctx,
  scene: Scene,
  shown: SceneNode[],
  level: "near" | "mid",
  alpha: (n: SceneNode) => number,
): void {
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  const padOf = (n: SceneNode) => (KIND_STYLES[n.node.kind].shape === "pill" ? 22 : 12);
  const texts = shown.map((n) => textsOf(scene, n.node, KIND_STYLES[n.node.kind]));
  if (level === "mid") {
    // As styles.css: a 17 px kind tag (when the name is shared), then 26 px name lines, centred.
    const topOf = (i: number) =>
      shown[i].y + (NODE_HEIGHT - (texts[i].name[1] ? 52 : 26) - (texts[i].tag ? 17 : 0)) / 2;
    ctx.font = font(600, NAME_PX);
    ctx.fillStyle = TEXT;
    shown.forEach((n, i) => {
      ctx.globalAlpha = alpha(n);
      const [first, second] = texts[i].name;
      const at = topOf(i) + (texts[i].tag ? 17 : 0);
      ctx.fillText(first, n.x + padOf(n), at + 13);
      if (second) ctx.fillText(second, n.x + padOf(n), at + 39);
    });
    ctx.font = font(700, TAG_PX);
    shown.forEach((n, i) => {
      if (!texts[i].tag) return;
      ctx.globalAlpha = alpha(n);
      ctx.fillStyle = KIND_STYLES[n.node.kind].color;
      ctx.fillText(texts[i].tag, n.x + padOf(n), topOf(i) + 8.5);
    });
    ctx.globalAlpha = 1;
    return;
  }
  // Rows (styles.css): a 14 px top row, a 17 px name, a 13 px namespace, 1 px apart, centred.
  const top = (n: SceneNode) => n.y + NODE_HEIGHT / 2 - 16;
  const label = (n: SceneNode) => n.y + NODE_HEIGHT / 2 + 0.5;
  const sub = (n: SceneNode) => n.y + NODE_HEIGHT / 2 + 16.5;
  ctx.font = font(700, 9);
  shown.forEach((n) => {
    const style = KIND_STYLES[n.node.kind];
    const badge = style.label.toUpperCase();
    ctx.globalAlpha = alpha(n);
    ctx.fillStyle = style.color;
    const width = measure(badge, font(700, 9)) + 10;
    ctx.beginPath();
    ctx.roundRect(n.x + padOf(n), top(n) - 6.5, width, 13, 3);
    ctx.fill();
    ctx.fillStyle = "#fff";
    ctx.fillText(badge, n.x + padOf(n) + 5, top(n) + 0.5);
  });
  ctx.font = font(400, SUB_PX);
  ctx.fillStyle = MUTED;
  ctx.textAlign = "right";
  shown.forEach((n, i) => {
    ctx.globalAlpha = alpha(n);
    if (texts[i].producer) ctx.fillText(texts[i].producer, n.x + NODE_WIDTH - padOf(n), top(n));
  });
  ctx.textAlign = "left";
  shown.forEach((n, i) => {
    ctx.globalAlpha = alpha(n);
    ctx.fillText(texts[i].sub, n.x + padOf(n), sub(n));
  });
  ctx.font = font(600, SUB_PX);
  ctx.fillStyle = ALIASES;
  shown.forEach((n, i) => {
    if (!texts[i].aliases) return;
    ctx.globalAlpha = alpha(n);
    ctx.fillText(texts[i].aliases, n.x + padOf(n) + measure(texts[i].sub, font(400, SUB_PX)) + 4, sub(n));
  });
  ctx.font = font(600, LABEL_PX);
  ctx.fillStyle = TEXT;
  shown.forEach((n, i) => {
    ctx.globalAlpha = alpha(n);
    ctx.fillText(texts[i].label, n.x + padOf(n), label(n));
  });
  ctx.globalAlpha = 1;
}

/** How many nodes are inside `view`. */
export function countInView(scene: Scene, view: Box): number {
  let count = 0;
  for (const n of scene.nodes) if (nodeInView(n, view)) count++;
  return count;
}

/** How many edge labels are painted inside `view` at `zoom` (none far out), and their text's size on screen (px). */
export function notesInView(scene: Scene, view: Box, zoom: number): { count: number; px: number } {
  let count = 0;
  if (zoomLevel(zoom) !== "far") {
    for (const at of scene.labels.values()) {
      if (at.x >= view.left && at.x <= view.right && at.y >= view.top && at.y <= view.bottom) count++;
    }
  }
  return { count, px: NOTE_PX * labelScale(zoom) * zoom };
}

/** Whether node `id` is (at least partly) inside `view`. */
export function isInView(scene: Scene, id: string, view: Box): boolean {
  const n = scene.nodes.find((each) => each.node.id === id);
  return !!n && nodeInView(n, view);
}

/** The node under a point of the graph, if any (a linear scan: cheap next to drawing). */
export function nodeAt(scene: Scene, point: Point): string | null {
  for (let i = scene.nodes.length - 1; i >= 0; i--) {
    const n = scene.nodes[i];
    if (point.x >= n.x && point.x <= n.x + NODE_WIDTH && point.y >= n.y && point.y <= n.y + NODE_HEIGHT) {
      return n.node.id;
    }
  }
  return null;
}
