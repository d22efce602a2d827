// Where the canvas looks: the zoom levels it draws differently at, and the
// viewport that fits a laid-out graph.

import type { Viewport } from "@xyflow/react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";

/** Graphs of more nodes are painted on one <canvas> (Overview, paint.ts), at every zoom. */
export const BIG_GRAPH = 400;
/** Below this zoom a big graph is the overview (only colours, no text). */
export const OVERVIEW_ZOOM = 0.3;
export const MIN_ZOOM = 0.01;
/**
 * A graph opens no further out than this: names (22 px zoomed out, see
 * elements.tsx) are then at least 11 px on screen. When the whole graph does
 * not fit at this zoom, the view centres on the selection or the busiest part.
 */
export const READABLE_ZOOM = 0.5;
/** From this zoom nodes show their kind, producer and namespace too (13 px names: 11 px on screen). */
export const NEAR_ZOOM = 0.85;

/** Zoomed out, nodes show only their name, larger; far out, only their colour. */
export function zoomLevel(zoom: number): "near" | "mid" | "far" {
  if (zoom >= NEAR_ZOOM) return "near";
  return zoom >= 0.2 ? "mid" : "far";
}

/**
 * The centre of the busiest part of the graph: of windows the size of the
 * screen (in graph units) centred on nodes, the one holding the most nodes
 * (the first, in the order given, of equals). Large graphs try a sample of
 * centres.
 */
export function busiestPoint(positions: Map<string, Point>, viewWidth: number, viewHeight: number): Point | null {
  const points = [...positions.values()].map((p) => ({ x: p.x + NODE_WIDTH / 2, y: p.y + NODE_HEIGHT / 2 }));
  if (points.length === 0) return null;
  const step = Math.max(1, Math.floor(points.length / 300));
  const halfW = viewWidth / 2 - NODE_WIDTH / 2;
  const halfH = viewHeight / 2 - NODE_HEIGHT / 2;
  let best = points[0];
  let bestCount = -1;
  for (let i = 0; i < points.length; i += step) {
    const c = points[i];
    let count = 0;
    for (const p of points) if (Math.abs(p.x - c.x) <= halfW && Math.abs(p.y - c.y) <= halfH) count++;
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
      : (busiestPoint(positions, width / zoom, height / zoom) ?? { x: minX, y: minY });
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
