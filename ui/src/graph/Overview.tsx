// The overview of a large graph, zoomed out: every node and edge drawn on one
// <canvas> in a few calls, instead of thousands of DOM elements. It follows
// React Flow's viewport, and lights the hovered or selected path like the
// DOM nodes do. Closer in, the DOM nodes take over (see LineageCanvas).
//
// The whole graph is painted once per zoom level (and highlight) into an
// off-screen bitmap; panning only copies that bitmap to a new place.

import { useStore } from "@xyflow/react";
import { useLayoutEffect, useMemo, useRef, useState } from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import { getLit, useLitState } from "./highlight";
import { KIND_STYLES, type VisualKind } from "./kinds";
import type { Point } from "./layered";
import type { LGraph } from "./model";

interface Props {
  graph: LGraph;
  positions: Map<string, Point>;
  /** Paths of edges that cross layers, around the nodes (layered.ts). */
  routes: Map<string, Point[]>;
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

type Lit = ReturnType<typeof getLit>;

/** The largest bitmap (each side, in device pixels) kept for panning. */
const MAX_BITMAP = 4096;

function bounds(positions: Map<string, Point>): Box {
  const box = { left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity };
  for (const p of positions.values()) {
    box.left = Math.min(box.left, p.x);
    box.top = Math.min(box.top, p.y);
    box.right = Math.max(box.right, p.x + NODE_WIDTH);
    box.bottom = Math.max(box.bottom, p.y + NODE_HEIGHT);
  }
  return box;
}

/** Paint the nodes and edges inside `view` (graph coordinates); returns how many nodes. */
function paint(
  ctx: CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D,
  graph: LGraph,
  positions: Map<string, Point>,
  routes: Map<string, Point[]>,
  lit: Lit,
  zoom: number,
  view: Box,
): number {
  const inView = (p: Point) =>
    p.x + NODE_WIDTH > view.left && p.x < view.right && p.y + NODE_HEIGHT > view.top && p.y < view.bottom;
  const dimmed = lit.nodes !== null;
  const edgePath = (edges: Iterable<{ id: string; source: string; target: string }>) => {
    ctx.beginPath();
    for (const edge of edges) {
      const s = positions.get(edge.source);
      const t = positions.get(edge.target);
      if (!s || !t) continue;
      const route = routes.get(edge.id);
      if (route) {
        ctx.moveTo(route[0].x, route[0].y);
        for (let i = 1; i < route.length; i++) {
          const a = route[i - 1];
          const b = route[i];
          const mid = (a.x + b.x) / 2;
          if (a.y === b.y) ctx.lineTo(b.x, b.y);
          else ctx.bezierCurveTo(mid, a.y, mid, b.y, b.x, b.y);
        }
        continue;
      }
      if (!inView(s) && !inView(t)) continue;
      const sx = s.x + NODE_WIDTH;
      const sy = s.y + NODE_HEIGHT / 2;
      const tx = t.x;
      const ty = t.y + NODE_HEIGHT / 2;
      const bend = Math.max(30, Math.abs(tx - sx) / 2);
      ctx.moveTo(sx, sy);
      ctx.bezierCurveTo(sx + bend, sy, tx - bend, ty, tx, ty);
    }
  };
  ctx.lineWidth = 1.2 / zoom;
  ctx.strokeStyle = "#94a3b8";
  ctx.globalAlpha = dimmed ? 0.15 : 0.8;
  edgePath(dimmed ? graph.edges.filter((e) => !lit.edges?.has(e.id)) : graph.edges);
  ctx.stroke();
  if (dimmed && lit.edges) {
    ctx.globalAlpha = 1;
    ctx.strokeStyle = "#b91c1c";
    ctx.lineWidth = 2.5 / zoom;
    edgePath(graph.edges.filter((e) => lit.edges?.has(e.id)));
    ctx.stroke();
  }
  // Nodes: one path per kind and brightness.
  const groups = new Map<string, Point[]>();
  let count = 0;
  for (const node of graph.nodes) {
    const p = positions.get(node.id);
    if (!p || !inView(p)) continue;
    count++;
    const on = !dimmed || (lit.nodes?.has(node.id) ?? false);
    const key = `${node.kind}|${on ? 1 : 0}`;
    const list = groups.get(key);
    if (list) list.push(p);
    else groups.set(key, [p]);
  }
  for (const [key, points] of groups) {
    const [kind, on] = key.split("|");
    const style = KIND_STYLES[kind as VisualKind];
    ctx.globalAlpha = on === "1" ? 1 : 0.2;
    ctx.beginPath();
    for (const p of points) ctx.rect(p.x, p.y, NODE_WIDTH, NODE_HEIGHT);
    ctx.fillStyle = style.fill;
    ctx.fill();
    ctx.lineWidth = Math.max(2, 1.5 / zoom);
    ctx.strokeStyle = style.color;
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  const selected = lit.selected ? positions.get(lit.selected) : undefined;
  if (selected) {
    const pad = 6 / zoom;
    ctx.lineWidth = 4 / zoom;
    ctx.strokeStyle = "#b91c1c";
    ctx.strokeRect(selected.x - pad, selected.y - pad, NODE_WIDTH + 2 * pad, NODE_HEIGHT + 2 * pad);
  }
  return count;
}

interface Cached {
  key: unknown[];
  bitmap: OffscreenCanvas;
  box: Box;
  count: number;
}

export function Overview({ graph, positions, routes }: Props) {
  const ref = useRef<HTMLCanvasElement>(null);
  const cache = useRef<Cached | null>(null);
  const [x, y, zoom] = useStore((s) => s.transform);
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const lit = useLitState();
  const [drawn, setDrawn] = useState(0);
  const whole = useMemo(() => bounds(positions), [positions]);

  useLayoutEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext("2d");
    if (!canvas || !ctx || width === 0 || height === 0) return;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    const view: Box = {
      left: -x / zoom,
      top: -y / zoom,
      right: (width - x) / zoom,
      bottom: (height - y) / zoom,
    };
    const scale = zoom * dpr;
    const bitmapWidth = Math.ceil((whole.right - whole.left) * scale) + 2;
    const bitmapHeight = Math.ceil((whole.bottom - whole.top) * scale) + 2;
    const canCache = typeof OffscreenCanvas !== "undefined" && bitmapWidth <= MAX_BITMAP && bitmapHeight <= MAX_BITMAP;
    if (!canCache) {
      cache.current = null;
      ctx.setTransform(scale, 0, 0, scale, x * dpr, y * dpr);
      setDrawn(paint(ctx, graph, positions, routes, lit, zoom, view));
      return;
    }
    const key = [graph, positions, routes, lit, zoom, dpr];
    let cached = cache.current;
    if (!cached || cached.key.some((part, i) => part !== key[i])) {
      const bitmap = new OffscreenCanvas(bitmapWidth, bitmapHeight);
      const off = bitmap.getContext("2d");
      if (!off) return;
      off.setTransform(scale, 0, 0, scale, -whole.left * scale + 1, -whole.top * scale + 1);
      const count = paint(off, graph, positions, routes, lit, zoom, whole);
      cached = { key, bitmap, box: whole, count };
      cache.current = cached;
    }
    ctx.drawImage(cached.bitmap, Math.round((x + whole.left * zoom) * dpr) - 1, Math.round((y + whole.top * zoom) * dpr) - 1);
    // Nodes on screen (for tests and the curious): the cached count when all fit.
    const all = view.left <= whole.left && view.top <= whole.top && view.right >= whole.right && view.bottom >= whole.bottom;
    setDrawn(all ? cached.count : countInView(graph, positions, view));
  }, [graph, positions, routes, whole, x, y, zoom, width, height, lit]);

  return (
    <canvas
      ref={ref}
      className="overview"
      style={{ width, height }}
      data-drawn={drawn}
      data-lit-nodes={lit.nodes?.size ?? 0}
      aria-hidden
    />
  );
}

function countInView(graph: LGraph, positions: Map<string, Point>, view: Box): number {
  let count = 0;
  for (const node of graph.nodes) {
    const p = positions.get(node.id);
    if (p && p.x + NODE_WIDTH > view.left && p.x < view.right && p.y + NODE_HEIGHT > view.top && p.y < view.bottom) {
      count++;
    }
  }
  return count;
}

/** The node under a point of the graph, if any (a linear scan: cheap next to drawing). */
export function nodeAt(graph: LGraph, positions: Map<string, Point>, point: Point): string | null {
  for (let i = graph.nodes.length - 1; i >= 0; i--) {
    const p = positions.get(graph.nodes[i].id);
    if (p && point.x >= p.x && point.x <= p.x + NODE_WIDTH && point.y >= p.y && point.y <= p.y + NODE_HEIGHT) {
      return graph.nodes[i].id;
    }
  }
  return null;
}
