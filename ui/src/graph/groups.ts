// The graph's separate pipelines (connected components), each drawn inside a
// frame of its own so pipelines laid out side by side never look joined.

import { NODE_HEIGHT, NODE_WIDTH } from "./elements";
import type { Point } from "./layered";
import type { LGraph } from "./model";

export interface GroupBox {
  id: string;
  left: number;
  top: number;
  width: number;
  height: number;
  nodes: number;
}

/** Space between a group's nodes and its frame (graph units). */
const PAD = 24;

/** The frame of each connected component of two nodes or more (none when the graph is one). */
export function groupBoxes(graph: LGraph, positions: Map<string, Point>): GroupBox[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root) as string;
    parent.set(x, root);
    return root;
  };
  for (const edge of graph.edges) {
    const a = find(edge.source);
    const b = find(edge.target);
    if (a !== b) parent.set(a, b);
  }
  const boxes = new Map<string, GroupBox & { right: number; bottom: number }>();
  for (const node of graph.nodes) {
    const p = positions.get(node.id);
    if (!p) continue;
    const root = find(node.id);
    const box = boxes.get(root);
    if (!box) {
      boxes.set(root, {
        id: root,
        left: p.x,
        top: p.y,
        right: p.x + NODE_WIDTH,
        bottom: p.y + NODE_HEIGHT,
        width: 0,
        height: 0,
        nodes: 1,
      });
      continue;
    }
    box.left = Math.min(box.left, p.x);
    box.top = Math.min(box.top, p.y);
    box.right = Math.max(box.right, p.x + NODE_WIDTH);
    box.bottom = Math.max(box.bottom, p.y + NODE_HEIGHT);
    box.nodes++;
  }
  if (boxes.size < 2) return [];
  return [...boxes.values()]
    .filter((box) => box.nodes > 1)
    .map((box) => ({
      id: box.id,
      left: box.left - PAD,
      top: box.top - PAD,
      width: box.right - box.left + 2 * PAD,
      height: box.bottom - box.top + 2 * PAD,
      nodes: box.nodes,
    }));
}
