// The health overlay (issue 41): a failed job red, a stale dataset amber, a
// node downstream of either (at risk) marked. Never colour alone: each state
// has its own glyph (a cross, a clock, a warning sign) and its own ring (solid,
// dashed, dotted), drawn the same on a DOM node (HealthMark.tsx, styles.css)
// and on the painted large graph (paintHealth).

import type { LNode } from "./model";

/** A node's health as the graph API answers it (GraphNode.state). */
export type Health = "ok" | "failed" | "stale" | "at_risk" | "unknown";
/** The states the overlay marks. */
export type Marked = "failed" | "stale" | "at_risk";

export interface HealthMarkStyle {
  label: string;
  /** What the state means, in a sentence (the legend's hover, the node's tooltip). */
  hint: string;
  color: string;
  /** The ring's dash, in graph units (empty: solid). */
  dash: number[];
}

export const HEALTH_MARKS: Record<Marked, HealthMarkStyle> = {
  failed: {
    label: "failed",
    hint: "A job whose latest run failed or was aborted, with no later success",
    color: "#dc2626",
    dash: [],
  },
  stale: {
    label: "stale",
    hint: "A dataset not written for longer than its expected interval",
    color: "#b45309",
    dash: [8, 4],
  },
  at_risk: {
    label: "at risk",
    hint: "Downstream of a failed job or a stale dataset",
    color: "#c2410c",
    dash: [2, 4],
  },
};

/** The order the legend lists them in. */
export const MARKED_ORDER: Marked[] = ["failed", "stale", "at_risk"];

/** The state the overlay marks on `node`, else null (ok, unknown, or no state: the registry view). */
export function markedHealth(node: LNode): Marked | null {
  const state = node.ol?.state;
  return state === "failed" || state === "stale" || state === "at_risk" ? state : null;
}

type Ctx = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

interface Placed {
  node: LNode;
  x: number;
  y: number;
}

const WIDTH = 220; // elements.tsx NODE_WIDTH, NODE_HEIGHT (not imported: no cycle with paint.ts)
const HEIGHT = 80;

/** The glyph of a state, centred on (cx, cy), radius r: a cross, a clock, or "!" in a triangle. */
export function paintGlyph(ctx: Ctx, state: Marked, cx: number, cy: number, r: number): void {
  const color = HEALTH_MARKS[state].color;
  ctx.setLineDash([]);
  ctx.fillStyle = "#fff";
  ctx.strokeStyle = color;
  ctx.lineWidth = r / 4;
  ctx.beginPath();
  if (state === "at_risk") {
    ctx.moveTo(cx, cy - r);
    ctx.lineTo(cx + r, cy + r * 0.8);
    ctx.lineTo(cx - r, cy + r * 0.8);
    ctx.closePath();
  } else ctx.arc(cx, cy, r, 0, 2 * Math.PI);
  ctx.fill();
  ctx.stroke();
  ctx.beginPath();
  if (state === "failed") {
    const d = r * 0.45;
    ctx.moveTo(cx - d, cy - d);
    ctx.lineTo(cx + d, cy + d);
    ctx.moveTo(cx + d, cy - d);
    ctx.lineTo(cx - d, cy + d);
  } else if (state === "stale") {
    ctx.moveTo(cx, cy - r * 0.6);
    ctx.lineTo(cx, cy);
    ctx.lineTo(cx + r * 0.45, cy + r * 0.3);
  } else {
    ctx.moveTo(cx, cy - r * 0.35);
    ctx.lineTo(cx, cy + r * 0.25);
    ctx.moveTo(cx, cy + r * 0.5);
    ctx.lineTo(cx, cy + r * 0.55);
  }
  ctx.stroke();
}

/**
 * The overlay on the painted graph: each marked node's ring and, at its top
 * left corner, its glyph, large enough to tell apart at every zoom.
 */
export function paintHealth(ctx: Ctx, shown: Placed[], alpha: (n: Placed) => number, zoom: number): void {
  const r = Math.max(9, 7 / zoom);
  for (const n of shown) {
    const state = markedHealth(n.node);
    if (!state) continue;
    const style = HEALTH_MARKS[state];
    ctx.globalAlpha = alpha(n);
    ctx.strokeStyle = style.color;
    ctx.lineWidth = Math.max(3, 2.5 / zoom);
    ctx.setLineDash(style.dash.map((d) => Math.max(d, d / zoom)));
    ctx.beginPath();
    ctx.roundRect(n.x - 5, n.y - 5, WIDTH + 10, HEIGHT + 10, 9);
    ctx.stroke();
    paintGlyph(ctx, state, n.x, n.y, r);
  }
  ctx.setLineDash([]);
  ctx.globalAlpha = 1;
}
