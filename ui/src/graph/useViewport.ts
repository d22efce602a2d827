// Moving the viewport: fitting the graph (once laid out, and the Fit button),
// and bringing a node selected elsewhere (search, a link) into view.

import { useReactFlow } from "@xyflow/react";
import { useCallback, useEffect, useRef, type RefObject } from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";
import { fitViewport, MIN_ZOOM, READABLE_ZOOM } from "./viewport";

type Wrapper = RefObject<HTMLDivElement | null>;

/**
 * Fits `positions` into the canvas: a small graph stays readable (centred on
 * `focusId` when it does not fit), a big one shows whole; `whole` always
 * shows all of it.
 */
export function useFit(wrapper: Wrapper, big: boolean, focusId: string | null) {
  const flow = useReactFlow();
  const readable = big ? MIN_ZOOM : READABLE_ZOOM;
  return useCallback(
    (positions: Map<string, Point>, duration = 0, whole = false) => {
      const box = wrapper.current?.getBoundingClientRect();
      if (!box) return;
      const focus = focusId ? (positions.get(focusId) ?? null) : null;
      const viewport = fitViewport(positions, box.width, box.height, whole ? MIN_ZOOM : readable, focus);
      flow.setViewport(viewport, { duration });
    },
    [flow, readable, focusId, wrapper],
  );
}

/** Centres on `selected` when it becomes selected off screen (once drawn). */
export function useBringIntoView(
  wrapper: Wrapper,
  positions: Map<string, Point> | null,
  ready: boolean,
  selected: string | null,
) {
  const flow = useReactFlow();
  const lastCentered = useRef<string | null>(null);
  useEffect(() => {
    if (!ready || !positions || !selected || lastCentered.current === selected) return;
    lastCentered.current = selected;
    const p = positions.get(selected);
    const box = wrapper.current?.getBoundingClientRect();
    if (!p || !box) return;
    const { x, y, zoom: z } = flow.getViewport();
    const sx = p.x * z + x;
    const sy = p.y * z + y;
    const visible = sx > 0 && sy > 0 && sx + NODE_WIDTH * z < box.width && sy + NODE_HEIGHT * z < box.height;
    if (!visible) {
      flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: Math.max(z, 0.8), duration: 300 });
    }
  }, [ready, positions, selected, flow, wrapper]);
}
