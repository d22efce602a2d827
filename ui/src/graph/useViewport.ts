// Moving the viewport: fitting the graph (once laid out, and the Fit button),
// and bringing a node selected elsewhere (search, a link) into view.

import { useReactFlow, useStore } from "@xyflow/react";
import { useCallback, useEffect, type RefObject } from "react";
import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";
import type { LGraph } from "./model";
import { clearOfOverlays, feastEnd, fitViewport, MIN_ZOOM, READABLE_ZOOM, type Rect } from "./viewport";

type Wrapper = RefObject<HTMLDivElement | null>;

/**
 * Room kept free at the bottom of the canvas when fitting a graph: the legend
 * (and the map) lie over it there.
 */
export const LEGEND_ROOM = 64;

/** What lies over the canvas (inside it, or beside it in its parent: the legend). */
const OVERLAYS = ".react-flow__minimap, .navmap, .react-flow__controls, .legend";

/** The boxes of what lies over the canvas `wrapper`, in pixels from its top-left corner. */
export function overlaysOf(wrapper: HTMLElement | null): Rect[] {
  if (!wrapper) return [];
  const box = wrapper.getBoundingClientRect();
  const scope = wrapper.parentElement ?? wrapper;
  const rects: Rect[] = [];
  for (const element of scope.querySelectorAll(OVERLAYS)) {
    const r = element.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    rects.push({ left: r.left - box.left, top: r.top - box.top, right: r.right - box.left, bottom: r.bottom - box.top });
  }
  return rects;
}

/**
 * Fits `positions` into the canvas, clear of what lies over it (the minimap,
 * the legend, the zoom buttons), readable (centred on `focusId`, else on
 * the graph's Feast end, else its busiest part, when the whole graph cannot
 * be read at once); `whole`
 * shows all of it, however small.
 */
export function useFit(wrapper: Wrapper, focusId: string | null, graph: LGraph) {
  const flow = useReactFlow();
  const readable = READABLE_ZOOM;
  return useCallback(
    (positions: Map<string, Point>, duration = 0, whole = false) => {
      const box = wrapper.current?.getBoundingClientRect();
      if (!box) return;
      const focus = focusId ? (positions.get(focusId) ?? null) : null;
      const ends = whole || focus ? null : feastEnd(graph);
      const height = Math.max(box.height / 2, box.height - LEGEND_ROOM);
      const lowest = whole ? MIN_ZOOM : readable;
      const fit = fitViewport(positions, box.width, height, lowest, focus, ends);
      const viewport = clearOfOverlays(positions, fit, box.width, box.height, overlaysOf(wrapper.current), lowest);
      flow.setViewport(viewport, { duration });
    },
    [flow, readable, focusId, wrapper, graph],
  );
}

/** Space kept between a node brought into view and the canvas's edge (px). */
const MARGIN = 40;

/**
 * Keeps `selected` on screen: when it becomes selected off screen (search, a
 * link, a run's dataset in the details panel) or the canvas shrinks under it
 * (the details panel opens), the view pans just enough to show it, keeping
 * its zoom (zooming in only to a readable level).
 */
export function useKeepInView(
  wrapper: Wrapper,
  positions: Map<string, Point> | null,
  ready: boolean,
  selected: string | null,
) {
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  useEffect(() => {
    if (!ready || !positions || !selected) return;
    const p = positions.get(selected);
    const box = wrapper.current?.getBoundingClientRect();
    if (!p || !box || box.width === 0) return;
    const viewport = flow.getViewport();
    const z = viewport.zoom;
    const margin = z < READABLE_ZOOM ? 0 : MARGIN; // zoomed far out, a node at the edge is seen
    const shift = (start: number, size: number, room: number) => {
      if (size + 2 * margin > room) return room / 2 - (start + size / 2); // centre it
      if (start < margin) return margin - start;
      if (start + size > room - margin) return room - margin - (start + size);
      return 0;
    };
    const dx = shift(p.x * z + viewport.x, NODE_WIDTH * z, box.width);
    const dy = shift(p.y * z + viewport.y, NODE_HEIGHT * z, box.height);
    if (dx === 0 && dy === 0) return;
    if (z < READABLE_ZOOM) {
      flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: READABLE_ZOOM, duration: 300 });
    } else {
      flow.setViewport({ x: viewport.x + dx, y: viewport.y + dy, zoom: z }, { duration: 300 });
    }
  }, [ready, positions, selected, flow, wrapper, width, height]);
}
