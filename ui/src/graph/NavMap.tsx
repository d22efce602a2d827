// The navigation map of a large graph: the whole graph in miniature (one
// bitmap, painted once per layout) with the part on screen outlined. Click or
// drag in it to move there. React Flow's own minimap draws an SVG element per
// node, too slow with thousands; this one costs a rectangle per frame.

import { useReactFlow, useStore } from "@xyflow/react";
import { useLayoutEffect, useMemo, useRef, type PointerEvent } from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import { extent } from "./viewport";
import { SELECT_COLOR } from "./kinds";
import type { GroupBox } from "./groups";
import { KIND_STYLES } from "./kinds";
import type { Point } from "./layered";
import type { LGraph } from "./model";

const WIDTH = 220;
const HEIGHT = 150;

interface Frame {
  left: number;
  top: number;
  scale: number;
}

function frameOf(positions: Map<string, Point>): Frame {
  const box = extent(positions);
  if (!box) return { left: 0, top: 0, scale: 1 };
  const { left, top, right, bottom } = box;
  const scale = Math.min(WIDTH / (right - left), HEIGHT / (bottom - top));
  // Centred in the map.
  return {
    left: left - (WIDTH / scale - (right - left)) / 2,
    top: top - (HEIGHT / scale - (bottom - top)) / 2,
    scale,
  };
}

export function NavMap({ graph, positions, groups }: { graph: LGraph; positions: Map<string, Point>; groups: GroupBox[] }) {
  const base = useRef<HTMLCanvasElement>(null);
  const view = useRef<HTMLCanvasElement>(null);
  const flow = useReactFlow();
  const [x, y, zoom] = useStore((s) => s.transform);
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const frame = useMemo(() => frameOf(positions), [positions]);
  const dpr = typeof window === "undefined" ? 1 : window.devicePixelRatio || 1;

  useLayoutEffect(() => {
    const ctx = base.current?.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    const at = (p: Point) => ({ x: (p.x - frame.left) * frame.scale, y: (p.y - frame.top) * frame.scale });
    ctx.strokeStyle = "#cbd5e1";
    ctx.lineWidth = 1;
    for (const box of groups) {
      const p = at({ x: box.left, y: box.top });
      ctx.strokeRect(p.x, p.y, box.width * frame.scale, box.height * frame.scale);
    }
    const w = Math.max(1.5, NODE_WIDTH * frame.scale);
    const h = Math.max(1.5, NODE_HEIGHT * frame.scale);
    for (const node of graph.nodes) {
      const p = positions.get(node.id);
      if (!p) continue;
      const q = at(p);
      ctx.fillStyle = KIND_STYLES[node.kind].color;
      ctx.fillRect(q.x, q.y, w, h);
    }
  }, [graph, positions, groups, frame, dpr]);

  useLayoutEffect(() => {
    const ctx = view.current?.getContext("2d");
    if (!ctx) return;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, WIDTH, HEIGHT);
    const left = (-x / zoom - frame.left) * frame.scale;
    const top = (-y / zoom - frame.top) * frame.scale;
    const w = (width / zoom) * frame.scale;
    const h = (height / zoom) * frame.scale;
    ctx.fillStyle = "rgba(241, 245, 249, 0.65)";
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    ctx.clearRect(left, top, w, h);
    ctx.strokeStyle = SELECT_COLOR;
    ctx.lineWidth = 1.5;
    ctx.strokeRect(left, top, w, h);
  }, [x, y, zoom, width, height, frame, dpr]);

  const moveTo = (event: PointerEvent<HTMLDivElement>) => {
    const rect = event.currentTarget.getBoundingClientRect();
    const gx = (event.clientX - rect.left) / frame.scale + frame.left;
    const gy = (event.clientY - rect.top) / frame.scale + frame.top;
    flow.setCenter(gx, gy, { zoom: flow.getZoom() });
  };

  return (
    <div
      className="navmap"
      aria-label="Map of the whole graph: click to move there"
      data-testid="navmap"
      onPointerDown={(event) => {
        event.currentTarget.setPointerCapture(event.pointerId);
        moveTo(event);
      }}
      onPointerMove={(event) => {
        if (event.buttons === 1) moveTo(event);
      }}
    >
      <canvas ref={base} width={WIDTH * dpr} height={HEIGHT * dpr} style={{ width: WIDTH, height: HEIGHT }} />
      <canvas ref={view} width={WIDTH * dpr} height={HEIGHT * dpr} style={{ width: WIDTH, height: HEIGHT }} />
    </div>
  );
}
