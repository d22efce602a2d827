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

/** A box: on the canvas, in pixels from its top-left corner; or in the graph, in its units. */
export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The box around every node (graph units), or null for no node. */
export function extent(positions: Map<string, Point>): Rect | null {
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const p of positions.values()) {
    left = Math.min(left, p.x);
    top = Math.min(top, p.y);
    right = Math.max(right, p.x + NODE_WIDTH);
    bottom = Math.max(bottom, p.y + NODE_HEIGHT);
  }
  return Number.isFinite(left) ? { left, top, right, bottom } : null;
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
  const whole = extent(positions);
  if (!whole || width === 0 || height === 0) return { x: 0, y: 0, zoom: 1 };
  const { left: minX, top: minY, right: maxX, bottom: maxY } = whole;
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

/** Pixels kept between a node and an overlay, and between the graph and the canvas's edge. */
const CLEARANCE = 8;
/** To clear the overlays, a whole graph is shown down to this share of the zoom that fits it. */
const SHRINK_FLOOR = 0.8;

/** Whether no node of `positions`, seen through `viewport`, lies under one of `overlays`. */
export function clearOf(positions: Map<string, Point>, viewport: Viewport, overlays: Rect[]): boolean {
  const { x, y, zoom } = viewport;
  for (const p of positions.values()) {
    const left = p.x * zoom + x;
    const top = p.y * zoom + y;
    const right = left + NODE_WIDTH * zoom;
    const bottom = top + NODE_HEIGHT * zoom;
    for (const o of overlays) {
      if (left < o.right + CLEARANCE && right > o.left - CLEARANCE && top < o.bottom + CLEARANCE && bottom > o.top - CLEARANCE) {
        return false;
      }
    }
  }
  return true;
}

/**
 * `fit`, a viewport that shows the whole graph (fitViewport), moved and if
 * need be zoomed out a little so that no node lies under what lies over the
 * canvas (`overlays`: the minimap, the legend, the zoom buttons) of
 * `width` x `height`: of the zooms from `fit`'s down to `lowest` (and no
 * further than SHRINK_FLOOR of it), the largest at which some place of the
 * graph on the canvas leaves every node clear, the graph as near where `fit`
 * centred it as can be. None: `fit` itself.
 */
export function clearOfOverlays(
  positions: Map<string, Point>,
  fit: Viewport,
  width: number,
  height: number,
  overlays: Rect[],
  lowest: number,
): Viewport {
  const whole = extent(positions);
  if (!whole || overlays.length === 0 || clearOf(positions, fit, overlays)) return fit;
  const { left: minX, top: minY, right: maxX, bottom: maxY } = whole;
  // A graph larger than the canvas (opened at a readable zoom) has nodes under everything anyway.
  if ((maxX - minX) * fit.zoom > width || (maxY - minY) * fit.zoom > height) return fit;
  // Where `fit` put the graph's centre, on the canvas.
  const cx = fit.x + ((minX + maxX) / 2) * fit.zoom;
  const cy = fit.y + ((minY + maxY) / 2) * fit.zoom;
  const floor = Math.max(lowest, fit.zoom * SHRINK_FLOOR);
  /** Where the graph's start (left or top) may go on one axis, nearest `centre` first. */
  const starts = (centre: number, room: number, size: number): number[] => {
    const low = CLEARANCE;
    const high = Math.max(low, room - CLEARANCE - size);
    const preferred = Math.min(high, Math.max(low, centre - size / 2));
    return [...new Set([preferred, low, high])].sort((a, b) => Math.abs(a - preferred) - Math.abs(b - preferred));
  };
  for (let zoom = fit.zoom; zoom >= floor; zoom -= fit.zoom * 0.02) {
    const lefts = starts(cx, width, (maxX - minX) * zoom);
    const tops = starts(cy, height, (maxY - minY) * zoom);
    const moved = (left: number, top: number) => Math.hypot(left - lefts[0], top - tops[0]);
    const places = lefts.flatMap((left) => tops.map((top) => ({ left, top })));
    places.sort((a, b) => moved(a.left, a.top) - moved(b.left, b.top));
    for (const { left, top } of places) {
      const viewport = { x: left - minX * zoom, y: top - minY * zoom, zoom };
      if (clearOf(positions, viewport, overlays)) return viewport;
    }
  }
  return fit;
}
