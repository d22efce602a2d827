// Zoomed in on a large graph, React Flow is handed only the nodes around the
// view (and their neighbours, so every edge leaving the view is drawn), not
// thousands: its work per frame grows with the nodes it holds, drawn or not.
// The set changes only when the view moves half a screen or zooms by a step.

import { useStore, type Edge, type Node, type ReactFlowState } from "@xyflow/react";
import { useMemo } from "react";
import { NODE_HEIGHT, NODE_WIDTH, type LineageNodeData } from "./elements";

interface Region {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The view in graph units, snapped to half screens, then widened by a screen each way (as a key). */
function regionKey(s: ReactFlowState): string {
  const [x, y, zoom] = s.transform;
  if (s.width === 0 || zoom === 0) return "";
  const w = s.width / zoom;
  const h = s.height / zoom;
  const stepX = w / 2;
  const stepY = h / 2;
  const left = Math.floor(-x / zoom / stepX) * stepX - w;
  const top = Math.floor(-y / zoom / stepY) * stepY - h;
  return [left, top, left + 3 * w + stepX, top + 3 * h + stepY].map(Math.round).join(",");
}

function parse(key: string): Region | null {
  if (!key) return null;
  const [left, top, right, bottom] = key.split(",").map(Number);
  return { left, top, right, bottom };
}

export function useCulled(
  nodes: Node<LineageNodeData>[],
  edges: Edge[],
  active: boolean,
): { nodes: Node<LineageNodeData>[]; edges: Edge[] } {
  const key = useStore((s) => (active ? regionKey(s) : ""));
  return useMemo(() => {
    const region = parse(key);
    if (!active || !region) return { nodes, edges };
    const near = new Set<string>();
    for (const node of nodes) {
      const p = node.position;
      if (p.x + NODE_WIDTH > region.left && p.x < region.right && p.y + NODE_HEIGHT > region.top && p.y < region.bottom) {
        near.add(node.id);
      }
    }
    const keep = new Set(near);
    const shownEdges = edges.filter((edge) => {
      if (!near.has(edge.source) && !near.has(edge.target)) return false;
      keep.add(edge.source);
      keep.add(edge.target);
      return true;
    });
    return { nodes: nodes.filter((node) => keep.has(node.id)), edges: shownEdges };
  }, [key, active, nodes, edges]);
}
