// The overview of a large graph, zoomed out: every node and edge drawn on one
// <canvas> in a few calls, instead of thousands of DOM elements. It follows
// React Flow's viewport, and lights the hovered or selected path like the
// DOM nodes do. Closer in, the DOM nodes take over (see LineageCanvas).

import { useStore } from "@xyflow/react";
import { useLayoutEffect, useRef, useState } from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import { useLitState } from "./highlight";
import { KIND_STYLES, type VisualKind } from "./kinds";
import type { Point } from "./layered";
import type { LGraph } from "./model";

interface Props {
  graph: LGraph;
  positions: Map<string, Point>;
}

export function Overview({ graph, positions }: Props) {
  const ref = useRef<HTMLCanvasElement>(null);
  const [x, y, zoom] = useStore((s) => s.transform);
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const lit = useLitState();
  const [drawn, setDrawn] = useState(0);

  useLayoutEffect(() => {
    const canvas = ref.current;
    const ctx = canvas?.getContext("2d");
    if (!canvas || !ctx || width === 0 || height === 0) return;
    const dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    ctx.setTransform(dpr * zoom, 0, 0, dpr * zoom, dpr * x, dpr * y);
    // What is on screen, in graph coordinates (with a node's size of margin).
    const left = -x / zoom - NODE_WIDTH;
    const top = -y / zoom - NODE_HEIGHT;
    const right = (width - x) / zoom + NODE_WIDTH;
    const bottom = (height - y) / zoom + NODE_HEIGHT;
    const onScreen = (p: Point) => p.x > left && p.x < right && p.y > top && p.y < bottom;
    const dimmed = lit.nodes !== null;

    const edgePath = (ids: Iterable<{ source: string; target: string }>) => {
      ctx.beginPath();
      for (const edge of ids) {
        const s = positions.get(edge.source);
        const t = positions.get(edge.target);
        if (!s || !t || (!onScreen(s) && !onScreen(t))) continue;
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

    // Nodes, one path per kind and brightness.
    const groups = new Map<string, Point[]>();
    let count = 0;
    for (const node of graph.nodes) {
      const p = positions.get(node.id);
      if (!p || !onScreen(p)) continue;
      count++;
      const on = !dimmed || (lit.nodes?.has(node.id) ?? false);
      const key = `${node.kind}|${on ? 1 : 0}`;
      const list = groups.get(key);
      if (list) list.push(p);
      else groups.set(key, [p]);
    }
    const border = Math.max(2, 1.5 / zoom);
    for (const [key, points] of groups) {
      const [kind, on] = key.split("|");
      const style = KIND_STYLES[kind as VisualKind];
      ctx.globalAlpha = on === "1" ? 1 : 0.2;
      ctx.beginPath();
      for (const p of points) ctx.rect(p.x, p.y, NODE_WIDTH, NODE_HEIGHT);
      ctx.fillStyle = style.fill;
      ctx.fill();
      ctx.lineWidth = border;
      ctx.strokeStyle = style.color;
      ctx.stroke();
    }
    ctx.globalAlpha = 1;
    const selected = lit.selected ? positions.get(lit.selected) : undefined;
    if (selected) {
      ctx.lineWidth = 4 / zoom;
      ctx.strokeStyle = "#b91c1c";
      ctx.strokeRect(selected.x - 6 / zoom, selected.y - 6 / zoom, NODE_WIDTH + 12 / zoom, NODE_HEIGHT + 12 / zoom);
    }
    setDrawn(count);
  }, [graph, positions, x, y, zoom, width, height, lit]);

  return <canvas ref={ref} className="overview" style={{ width, height }} data-drawn={drawn} aria-hidden />;
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
