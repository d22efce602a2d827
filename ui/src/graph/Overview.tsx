// A large graph drawn on one <canvas>, at every zoom (paint.ts): thousands of
// DOM nodes and SVG edges would make each pan frame slow, as the browser
// repaints every element on screen. It follows React Flow's viewport (which
// holds no nodes for a large graph) and lights the hovered or selected path.
// The pointer finds the node under it by position (usePointer, nodeAt).
//
// What is painted is kept in an off-screen bitmap: the whole graph when it
// fits one (zoomed out), else the view and half a screen around it; panning
// copies the bitmap to its new place, and paints again only on leaving it or
// on a change of zoom, highlight or selection.

import { useStore } from "@xyflow/react";
import { useLayoutEffect, useRef, useState } from "react";
import { useLitState } from "./highlight";
import { countInView, isInView, notesInView, paintScene, type Box, type Scene } from "./paint";

interface Props {
  scene: Scene;
  center: string | null;
}

/** The largest bitmap (each side, in device pixels) kept for panning. */
const MAX_BITMAP = 4096;

interface Cached {
  key: unknown[];
  bitmap: OffscreenCanvas;
  box: Box;
}

function inside(inner: Box, outer: Box): boolean {
  return inner.left >= outer.left && inner.top >= outer.top && inner.right <= outer.right && inner.bottom <= outer.bottom;
}

/** The box to keep painted around `view`: the whole graph if it fits, else the view widened by up to half a screen. */
function paintedBox(view: Box, whole: Box, scale: number): Box | null {
  const fits = (box: Box) => (box.right - box.left) * scale + 2 <= MAX_BITMAP && (box.bottom - box.top) * scale + 2 <= MAX_BITMAP;
  if (fits(whole)) return whole;
  const w = view.right - view.left;
  const h = view.bottom - view.top;
  const mx = Math.min(w / 2, (MAX_BITMAP - 2) / scale / 2 - w / 2);
  const my = Math.min(h / 2, (MAX_BITMAP - 2) / scale / 2 - h / 2);
  if (mx < 0 || my < 0) return null;
  return { left: view.left - mx, top: view.top - my, right: view.right + mx, bottom: view.bottom + my };
}

export function Overview({ scene, center }: Props) {
  const ref = useRef<HTMLCanvasElement>(null);
  const cache = useRef<Cached | null>(null);
  const [x, y, zoom] = useStore((s) => s.transform);
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const lit = useLitState();
  const [drawn, setDrawn] = useState(0);
  const [selectedDrawn, setSelectedDrawn] = useState(false);
  const [centerDrawn, setCenterDrawn] = useState(false);
  const [notes, setNotes] = useState({ count: 0, px: 0 });

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
    const view: Box = { left: -x / zoom, top: -y / zoom, right: (width - x) / zoom, bottom: (height - y) / zoom };
    const scale = zoom * dpr;
    const box = typeof OffscreenCanvas === "undefined" ? null : paintedBox(view, scene.whole, scale);
    if (!box) {
      cache.current = null;
      ctx.setTransform(scale, 0, 0, scale, x * dpr, y * dpr);
      paintScene(ctx, scene, lit, center, zoom, view);
    } else {
      const key = [scene, lit, center, zoom, dpr];
      let cached = cache.current;
      if (!cached || cached.key.some((part, i) => part !== key[i]) || (cached.box !== scene.whole && !inside(view, cached.box))) {
        const bitmapWidth = Math.ceil((box.right - box.left) * scale) + 2;
        const bitmapHeight = Math.ceil((box.bottom - box.top) * scale) + 2;
        const bitmap =
          cached && cached.bitmap.width === bitmapWidth && cached.bitmap.height === bitmapHeight
            ? cached.bitmap
            : new OffscreenCanvas(bitmapWidth, bitmapHeight);
        const off = bitmap.getContext("2d");
        if (!off) return;
        off.setTransform(1, 0, 0, 1, 0, 0);
        off.clearRect(0, 0, bitmapWidth, bitmapHeight);
        off.setTransform(scale, 0, 0, scale, -box.left * scale + 1, -box.top * scale + 1);
        paintScene(off, scene, lit, center, zoom, box);
        cached = { key, bitmap, box };
        cache.current = cached;
      }
      ctx.drawImage(
        cached.bitmap,
        Math.round((x + cached.box.left * zoom) * dpr) - 1,
        Math.round((y + cached.box.top * zoom) * dpr) - 1,
      );
    }
    // Nodes on screen, whether the selection and the focus centre are among them, the edge
    // labels on screen and their size (for tests and the curious).
    setDrawn(countInView(scene, view));
    setSelectedDrawn(lit.selected !== null && isInView(scene, lit.selected, view));
    setCenterDrawn(center !== null && isInView(scene, center, view));
    const painted = notesInView(scene, view, zoom);
    setNotes((known) => (known.count === painted.count && known.px === painted.px ? known : painted));
  }, [scene, center, x, y, zoom, width, height, lit]);

  return (
    <canvas
      ref={ref}
      className="overview"
      style={{ width, height }}
      data-drawn={drawn}
      data-lit-nodes={lit.nodes?.size ?? 0}
      data-selected-drawn={selectedDrawn ? (lit.selected ?? "") : undefined}
      data-center-drawn={centerDrawn ? (center ?? "") : undefined}
      data-notes-drawn={notes.count || undefined}
      data-note-px={notes.count ? notes.px.toFixed(1) : undefined}
      aria-hidden
    />
  );
}
