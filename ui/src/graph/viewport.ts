// Where the canvas looks: the zoom levels it draws differently at, and the
// viewport that fits a laid-out graph.

import type { Viewport } from "@xyflow/react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";

/** Graphs of more nodes are drawn on one <canvas> (Overview) when zoomed out. */
export const BIG_GRAPH = 400;
/** Below this zoom a big graph is the overview. */
export const OVERVIEW_ZOOM = 0.3;
export const MIN_ZOOM = 0.02;
/** A small graph is not zoomed out further than this when it opens (names at least ~7 px). */
export const READABLE_ZOOM = 0.35;

/** Zoomed out, nodes show only their name, larger; far out, only their colour. */
export function zoomLevel(zoom: number): "near" | "mid" | "far" {
  if (zoom >= 0.6) return "near";
  return zoom >= 0.16 ? "mid" : "far";
}

/**
 * The viewport that shows every position, with some padding; but not so far
 * out that names cannot be read (`readable`): then it centres on `focus`, or
 * on the start of the flow (the left).
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
    const cx = focus ? focus.x + NODE_WIDTH / 2 : minX + (width * 0.46) / zoom;
    const cy = focus ? focus.y + NODE_HEIGHT / 2 : (minY + maxY) / 2;
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
