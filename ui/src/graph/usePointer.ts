// The pointer over the graph: hovering a node lights its path, a click
// selects it. A large graph is painted on a <canvas> (no DOM nodes): there the
// pane gets the pointer, and the node under it is found by its position.

import { useReactFlow, type NodeMouseHandler } from "@xyflow/react";
import { useCallback, type MouseEvent, type RefObject } from "react";
import { nodeAt, type Scene } from "./paint";

interface Options {
  /** The painted graph (large graphs), else null. */
  scene: Scene | null;
  hover: (id: string | null) => void;
  onSelect: (id: string | null) => void;
  wrapper: RefObject<HTMLDivElement | null>;
}

/** React Flow's pointer handlers, to spread on <ReactFlow>. */
export function usePointer({ scene, hover, onSelect, wrapper }: Options) {
  const flow = useReactFlow();
  const onNodeMouseEnter: NodeMouseHandler = useCallback((_event, node) => hover(node.id), [hover]);
  const onNodeMouseLeave: NodeMouseHandler = useCallback(() => hover(null), [hover]);
  const onNodeClick: NodeMouseHandler = useCallback((_event, node) => onSelect(node.id), [onSelect]);

  const hit = useCallback(
    (event: MouseEvent) => {
      if (!scene) return null;
      return nodeAt(scene, flow.screenToFlowPosition({ x: event.clientX, y: event.clientY }));
    },
    [scene, flow],
  );
  const onPaneMouseMove = useCallback(
    (event: MouseEvent) => {
      if (!scene) return;
      const id = hit(event);
      hover(id);
      if (wrapper.current) wrapper.current.style.cursor = id ? "pointer" : "";
    },
    [scene, hit, hover, wrapper],
  );
  const onPaneClick = useCallback((event: MouseEvent) => onSelect(hit(event)), [hit, onSelect]);
  const onPaneMouseLeave = useCallback(() => hover(null), [hover]);

  return { onNodeMouseEnter, onNodeMouseLeave, onNodeClick, onPaneMouseMove, onPaneClick, onPaneMouseLeave };
}
