// Where the canvas looks: the zoom levels it draws differently at, and the
// viewport that fits a laid-out graph.

import type { Viewport } from "@xyflow/react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";
import { reach, type LGraph } from "./model";

/** Where a graph's Feast end is: its feature services, saved datasets and everything downstream of them. */
const FEAST_END_KINDS = new Set<string>(["feature_service", "saved_dataset"]);

export function feastEnd(graph: LGraph): Set<string> {
  const ends = new Set<string>();
  for (const node of graph.nodes) {
    if (!FEAST_END_KINDS.has(node.kind) || ends.has(node.id)) continue;
    for (const id of reach(graph, node.id, "downstream")) ends.add(id);
  }
  return ends;
}

/** Graphs of more nodes are painted on one <canvas> (Overview, paint.ts), at every zoom. */
export const BIG_GRAPH = 400;
/** Below this zoom a big graph is the overview (only colours, no text). */
export const OVERVIEW_ZOOM = 0.3;
export const MIN_ZOOM = 0.01;
/**
 * A graph opens no further out than this: names (22 px zoomed out, see
 * elements.tsx) are then at least 12 px on screen. When the whole graph does
 * not fit at this zoom, the view opens on the selection, else on the Feast
 * end of the pipelines (feature services, saved datasets and what reads
 * them), else on the busiest part.
 */
export const READABLE_ZOOM = 0.55;
/** From this zoom nodes show their kind, producer and namespace too (13 px names: 11 px on screen). */
export const NEAR_ZOOM = 0.85;

/**
 * The scale edge labels and the change beside a node (11 px text, edgeLabels.ts)
 * are drawn at: counter to the zoom, so they are 11 px on screen at every zoom
 * from READABLE_ZOOM (the furthest a graph opens at) to 1; further out they
 * shrink with the names, nearer they grow with everything.
 */
export function labelScale(zoom: number): number {
  return 1 / Math.min(1, Math.max(zoom, READABLE_ZOOM));
}

/** Zoomed out, nodes show only their name, larger; far out, only their colour. */
export function zoomLevel(zoom: number): "near" | "mid" | "far" {
  if (zoom >= NEAR_ZOOM) return "near";
  return zoom >= 0.2 ? "mid" : "far";
}

/**
 * The centre of the busiest part of the graph: of windows the size of the
 * screen (in graph units) centred on nodes, the one holding the most nodes
 * (the first, in the order given, of equals). Large graphs try a sample of
 * centres. With `among` (ids), only windows centred on those nodes count,
 * and those nodes first.
 */
export function busiestPoint(
  positions: Map<string, Point>,
  viewWidth: number,
  viewHeight: number,
  among: Set<string> | null = null,
): Point | null {
  const centre = (p: Point) => ({ x: p.x + NODE_WIDTH / 2, y: p.y + NODE_HEIGHT / 2 });
  const points = [...positions.values()].map(centre);
  const chosen = among ? [...positions].filter(([id]) => among.has(id)).map(([, p]) => centre(p)) : points;
  const candidates = chosen.length ? chosen : points;
  if (candidates.length === 0) return null;
  const step = Math.max(1, Math.floor(candidates.length / 300));
  const halfW = viewWidth / 2 - NODE_WIDTH / 2;
  const halfH = viewHeight / 2 - NODE_HEIGHT / 2;
  const inside = (c: Point, list: Point[]) => {
    let count = 0;
    for (const p of list) if (Math.abs(p.x - c.x) <= halfW && Math.abs(p.y - c.y) <= halfH) count++;
    return count;
  };
  let best = candidates[0];
  let bestCount = -1;
  for (let i = 0; i < candidates.length; i += step) {
    const c = candidates[i];
    const count = candidates === points ? inside(c, points) : inside(c, candidates) * (points.length + 1) + inside(c, points);
    if (count > bestCount) {
      best = c;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The viewport that shows every position, with some padding; but not so far
 * out that names cannot be read (`readable`): then it centres on `focus`, or
 * on the busiest part of the graph.
 */
export function fitViewport(
  positions: Map<string, Point>,
  width: number,
  height: number,
  readable = MIN_ZOOM,
  focus: Point | null = null,
  ends: Set<string> | null = null,
): Viewport {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of positions.values()) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + NODE_WIDTH);
    maxY = Math.max(maxY, p.y + NODE_HEIGHT);
  }
  if (!Number.isFinite(minX) || width === 0 || height === 0) return { x: 0, y: 0, zoom: 1 };
  const padding = 0.92;
  const fits = padding * Math.min(width / (maxX - minX), height / (maxY - minY));
  if (fits < readable) {
    const zoom = readable;
    const centre = focus
      ? { x: focus.x + NODE_WIDTH / 2, y: focus.y + NODE_HEIGHT / 2 }
      : (busiestPoint(positions, width / zoom, height / zoom, ends) ?? { x: minX, y: minY });
    const cx = centre.x;
    const cy = centre.y;
    // Centred, but with no empty margin where the graph goes on.
    const clamp = (value: number, lowest: number, highest: number) =>
      lowest > highest ? (lowest + highest) / 2 : Math.min(highest, Math.max(lowest, value));
    const margin = 0.04;
    const x = clamp(width / 2 - cx * zoom, width * (1 - margin) - maxX * zoom, width * margin - minX * zoom);
    const y = clamp(height / 2 - cy * zoom, height * (1 - margin) - maxY * zoom, height * margin - minY * zoom);
    return { x, y, zoom };
  }
  const zoom = Math.min(1.1, Math.max(MIN_ZOOM, fits));
  return {
    x: (width - (maxX - minX) * zoom) / 2 - minX * zoom,
    y: (height - (maxY - minY) * zoom) / 2 - minY * zoom,
    zoom,
  };
}
