// The pointer over the graph: hovering a node lights its path, a click
// selects it. In the overview (one <canvas>, no DOM nodes) the pane gets the
// pointer, and the node under it is found by its position.

import { useReactFlow, type NodeMouseHandler } from "@xyflow/react";
import { useCallback, type MouseEvent, type RefObject } from "react";
import type { Point } from "./layered";
import type { LGraph } from "./model";
import { nodeAt } from "./Overview";

interface Options {
  graph: LGraph;
  positions: Map<string, Point> | null;
  overview: boolean;
  hover: (id: string | null) => void;
  onSelect: (id: string | null) => void;
  wrapper: RefObject<HTMLDivElement | null>;
}

/** React Flow's pointer handlers, to spread on <ReactFlow>. */
export function usePointer({ graph, positions, overview, hover, onSelect, wrapper }: Options) {
  const flow = useReactFlow();
  const onNodeMouseEnter: NodeMouseHandler = useCallback((_event, node) => hover(node.id), [hover]);
  const onNodeMouseLeave: NodeMouseHandler = useCallback(() => hover(null), [hover]);
  const onNodeClick: NodeMouseHandler = useCallback((_event, node) => onSelect(node.id), [onSelect]);

  const hit = useCallback(
    (event: MouseEvent) => {
      if (!overview || !positions) return null;
      const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      return nodeAt(graph, positions, point);
    },
    [overview, positions, flow, graph],
  );
  const onPaneMouseMove = useCallback(
    (event: MouseEvent) => {
      if (!overview) return;
      const id = hit(event);
      hover(id);
      if (wrapper.current) wrapper.current.style.cursor = id ? "pointer" : "";
    },
    [overview, hit, hover, wrapper],
  );
  const onPaneClick = useCallback((event: MouseEvent) => onSelect(hit(event)), [hit, onSelect]);
  const onPaneMouseLeave = useCallback(() => hover(null), [hover]);

  return { onNodeMouseEnter, onNodeMouseLeave, onNodeClick, onPaneMouseMove, onPaneClick, onPaneMouseLeave };
}
