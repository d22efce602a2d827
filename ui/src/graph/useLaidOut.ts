// A graph laid out (in the web worker) and made into React Flow's nodes and
// edges; `ready` once they are drawn, when the page also records how long it
// took (window.__lineageTimings, read by the benchmark test).

import { MarkerType, type Edge, type Node } from "@xyflow/react";
import { useEffect, useMemo, useRef, useState } from "react";
import { NODE_HEIGHT, NODE_WIDTH, sharedNames, type LineageNodeData } from "./elements";
import { edgeWords, placeEdgeLabels } from "./edgeLabels";
import type { EdgeNote } from "./EdgeNotes";
import type { Point } from "./layered";
import { layout, type LayoutResult } from "./layout";
import type { LGraph } from "./model";
import { nodeAriaLabel } from "./useNodeKeys";
import { BIG_GRAPH, labelScale } from "./viewport";

declare global {
  interface Window {
    __lineageTimings?: { nodes: number; edges: number; layoutMs: number; readyAt: number };
  }
}

export const EMPTY_NODES: Node<LineageNodeData>[] = [];
export const EMPTY_EDGES: Edge[] = [];

/**
 * `onLaid` sees the positions before the nodes are handed over, so the
 * viewport can be set first (a big graph then starts as an overview).
 */
export function useLaidOut(
  graph: LGraph,
  center: string | null,
  onLaid: (positions: Map<string, Point>) => void,
  viewSize: () => { width: number; height: number } | undefined,
) {
  const [laid, setLaid] = useState<{ graph: LGraph; result: LayoutResult } | null>(null);
  const [ready, setReady] = useState(false);
  const onLaidRef = useRef(onLaid);
  onLaidRef.current = onLaid;
  const viewSizeRef = useRef(viewSize);
  viewSizeRef.current = viewSize;

  useEffect(() => {
    let cancelled = false;
    setReady(false);
    const sized = graph.nodes.map((n) => ({ id: n.id, width: NODE_WIDTH, height: NODE_HEIGHT }));
    const links = graph.edges.map((e) => ({ id: e.id, source: e.source, target: e.target }));
    // A graph drawn as DOM nodes is folded to the canvas's shape; a painted one (a map to explore) is not.
    const view = graph.nodes.length > BIG_GRAPH ? undefined : viewSizeRef.current();
    layout(sized, links, view).then((result) => {
      if (cancelled) return;
      onLaidRef.current(result.positions);
      setLaid({ graph, result });
    });
    return () => {
      cancelled = true;
    };
  }, [graph]);

  /** The layout of this graph (not of the one before, while this one is laid out). */
  const current = laid && laid.graph === graph ? laid.result : null;
  /** A large graph is painted on a canvas (Overview): React Flow gets no nodes to build. */
  const painted = graph.nodes.length > BIG_GRAPH;

  const nodes = useMemo<Node<LineageNodeData>[]>(() => {
    if (!current || painted) return EMPTY_NODES;
    const shared = sharedNames(graph);
    return graph.nodes.map((node) => ({
      id: node.id,
      type: "lineage",
      position: current.positions.get(node.id) ?? { x: 0, y: 0 },
      data: { node, center: node.id === center, tagged: shared.has(node.label) },
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      draggable: false,
      connectable: false,
      ariaLabel: nodeAriaLabel(node),
    }));
  }, [current, graph, center, painted]);

  const edges = useMemo<Edge[]>(() => {
    if (!current || painted) return EMPTY_EDGES;
    return graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      type: "lineage",
      data: {
        kind: edge.kind,
        route: current.routes.get(edge.id),
        origin: edge.origin,
        change: edge.change,
      },
      markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: "#94a3b8" },
      focusable: false,
      selectable: false,
    }));
  }, [current, graph, painted]);

  /** The edges' words (a window's run counts, changes), placed on their own edges. */
  const notes = useMemo<EdgeNote[]>(() => {
    if (!current || painted) return [];
    const size = { width: NODE_WIDTH, height: NODE_HEIGHT };
    const places = placeEdgeLabels(graph, current.positions, current.routes, size, labelScale(0));
    return graph.edges.flatMap((edge) => {
      const at = places.get(edge.id);
      return at ? [{ id: edge.id, at, words: edgeWords(edge), change: edge.change }] : [];
    });
  }, [current, graph, painted]);

  // Once laid out and drawn, tell the page (and its tests).
  useEffect(() => {
    if (!current) return;
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        setReady(true);
        window.__lineageTimings = {
          nodes: graph.nodes.length,
          edges: graph.edges.length,
          layoutMs: Math.round(current.ms),
          readyAt: performance.now(),
        };
      });
    });
    return () => cancelAnimationFrame(frame);
  }, [current, graph]);

  return { layout: current, nodes, edges, notes, ready };
}
