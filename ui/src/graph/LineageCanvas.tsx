// The graph canvas: lays the graph out, draws it with React Flow, lights the
// hovered (or selected) node's upstream and downstream path.
//
// Large graphs (more than BIG_GRAPH nodes) zoomed out are drawn on one
// <canvas> (Overview): thousands of DOM nodes would make every pan frame
// slow. Zoomed in, React Flow draws the nodes on screen, with their text.

import {
  Background,
  ControlButton,
  Controls,
  MarkerType,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  useStore,
  type Edge,
  type Node,
  type NodeMouseHandler,
  type Viewport,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { edgeTypes, NODE_HEIGHT, NODE_WIDTH, nodeTypes, type LineageNodeData } from "./elements";
import { setLit, setSelected, useAnyLit } from "./highlight";
import { KIND_STYLES } from "./kinds";
import type { Point } from "./layered";
import { layout, type LayoutResult } from "./layout";
import { connectedPath, type LGraph } from "./model";
import { nodeAt, Overview } from "./Overview";

export interface CanvasProps {
  graph: LGraph;
  center: string | null;
  selected: string | null;
  onSelect: (id: string | null) => void;
}

/** Where the page records how long the graph took (read by the benchmark test). */
declare global {
  interface Window {
    __lineageTimings?: { nodes: number; edges: number; layoutMs: number; engine: string; readyAt: number };
  }
}

const BIG_GRAPH = 400;
const OVERVIEW_ZOOM = 0.3;
const MIN_ZOOM = 0.02;
const READABLE_ZOOM = 0.35;
const EMPTY_NODES: Node<LineageNodeData>[] = [];
const EMPTY_EDGES: Edge[] = [];

/** Zoomed out, nodes show only their name, larger; far out, only their colour. */
function zoomLevel(zoom: number): "near" | "mid" | "far" {
  if (zoom >= 0.6) return "near";
  return zoom >= 0.16 ? "mid" : "far";
}

/**
 * The viewport that shows every position, with some padding; but not so far
 * out that names cannot be read (`readable`): then it centres on `focus`, or
 * on the start of the flow (the left).
 */
function fitViewport(
  positions: Map<string, Point>,
  width: number,
  height: number,
  readable = MIN_ZOOM,
  focus: Point | null = null,
): Viewport {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of positions.values()) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + NODE_WIDTH);
    maxY = Math.max(maxY, p.y + NODE_HEIGHT);
  }
  if (!Number.isFinite(minX) || width === 0 || height === 0) return { x: 0, y: 0, zoom: 1 };
  const padding = 0.92;
  const fits = padding * Math.min(width / (maxX - minX), height / (maxY - minY));
  if (fits < readable) {
    const zoom = readable;
    const cx = focus ? focus.x + NODE_WIDTH / 2 : minX + (width * 0.46) / zoom;
    const cy = focus ? focus.y + NODE_HEIGHT / 2 : (minY + maxY) / 2;
    // Centred, but with no empty margin where the graph goes on.
    const clamp = (value: number, lowest: number, highest: number) =>
      lowest > highest ? (lowest + highest) / 2 : Math.min(highest, Math.max(lowest, value));
    const margin = 0.04;
    const x = clamp(width / 2 - cx * zoom, width * (1 - margin) - maxX * zoom, width * margin - minX * zoom);
    const y = clamp(height / 2 - cy * zoom, height * (1 - margin) - maxY * zoom, height * margin - minY * zoom);
    return { x, y, zoom };
  }
  const zoom = Math.min(1.1, Math.max(MIN_ZOOM, fits));
  return {
    x: (width - (maxX - minX) * zoom) / 2 - minX * zoom,
    y: (height - (maxY - minY) * zoom) / 2 - minY * zoom,
    zoom,
  };
}

function Canvas({ graph, center, selected, onSelect }: CanvasProps) {
  const wrapper = useRef<HTMLDivElement>(null);
  const flow = useReactFlow();
  const [laid, setLaid] = useState<{ graph: LGraph; result: LayoutResult } | null>(null);
  const [ready, setReady] = useState(false);
  const big = graph.nodes.length > BIG_GRAPH;
  const level = useStore((s) => zoomLevel(s.transform[2]));
  const overview = useStore((s) => big && s.transform[2] < OVERVIEW_ZOOM);
  const anyLit = useAnyLit();

  // Small graphs stay readable (names at least ~7 px); large ones show whole.
  const readable = big ? MIN_ZOOM : READABLE_ZOOM;
  const focusId = center ?? selected;
  const fit = useCallback(
    (positions: Map<string, Point>, duration = 0, whole = false) => {
      const box = wrapper.current?.getBoundingClientRect();
      if (!box) return;
      const focus = focusId ? (positions.get(focusId) ?? null) : null;
      const viewport = fitViewport(positions, box.width, box.height, whole ? MIN_ZOOM : readable, focus);
      flow.setViewport(viewport, { duration });
    },
    [flow, readable, focusId],
  );
  const fitRef = useRef(fit);
  fitRef.current = fit;

  useEffect(() => {
    let cancelled = false;
    setReady(false);
    const sized = graph.nodes.map((n) => ({ id: n.id, width: NODE_WIDTH, height: NODE_HEIGHT }));
    const links = graph.edges.map((e) => ({ source: e.source, target: e.target }));
    layout(sized, links).then((result) => {
      if (cancelled) return;
      fitRef.current(result.positions); // before the nodes are handed over: a big graph starts as an overview
      setLaid({ graph, result });
    });
    return () => {
      cancelled = true;
    };
  }, [graph]);

  const current = laid && laid.graph === graph ? laid : null;

  const nodes = useMemo<Node<LineageNodeData>[]>(() => {
    if (!current) return EMPTY_NODES;
    return graph.nodes.map((node) => ({
      id: node.id,
      type: "lineage",
      position: current.result.positions.get(node.id) ?? { x: 0, y: 0 },
      data: { node, center: node.id === center },
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
      draggable: false,
      connectable: false,
    }));
  }, [current, graph, center]);

  const edges = useMemo<Edge[]>(() => {
    if (!current) return EMPTY_EDGES;
    return graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      type: "lineage",
      data: { kind: edge.kind },
      markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16, color: "#94a3b8" },
      focusable: false,
      selectable: false,
    }));
  }, [current, graph]);

  // Once laid out and drawn, tell the page (and its tests).
  useEffect(() => {
    if (!current) return;
    let frame = requestAnimationFrame(() => {
      frame = requestAnimationFrame(() => {
        setReady(true);
        window.__lineageTimings = {
          nodes: graph.nodes.length,
          edges: graph.edges.length,
          layoutMs: Math.round(current.result.ms),
          engine: current.result.engine,
          readyAt: performance.now(),
        };
      });
    });
    return () => cancelAnimationFrame(frame);
  }, [current, graph]);

  // Light the selected node's path; bring it into view when chosen elsewhere.
  const hovering = useRef<string | null>(null);
  const lightSelection = useCallback(() => {
    if (selected && graph.byId.has(selected)) {
      const path = connectedPath(graph, selected);
      setLit(path.nodes, path.edges);
    } else setLit(null, null);
  }, [graph, selected]);
  useEffect(() => {
    setSelected(selected);
    if (!hovering.current) lightSelection();
  }, [selected, lightSelection]);
  const lastCentered = useRef<string | null>(null);
  useEffect(() => {
    if (!ready || !current || !selected || lastCentered.current === selected) return;
    lastCentered.current = selected;
    const p = current.result.positions.get(selected);
    const box = wrapper.current?.getBoundingClientRect();
    if (!p || !box) return;
    const { x, y, zoom: z } = flow.getViewport();
    const sx = p.x * z + x;
    const sy = p.y * z + y;
    const visible = sx > 0 && sy > 0 && sx + NODE_WIDTH * z < box.width && sy + NODE_HEIGHT * z < box.height;
    if (!visible) {
      flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: Math.max(z, 0.8), duration: 300 });
    }
  }, [ready, current, selected, flow]);
  useEffect(() => () => setLit(null, null), []);

  const hover = useCallback(
    (id: string | null) => {
      if (hovering.current === id) return;
      hovering.current = id;
      if (id) {
        const path = connectedPath(graph, id);
        setLit(path.nodes, path.edges);
      } else lightSelection();
    },
    [graph, lightSelection],
  );
  const onEnter: NodeMouseHandler = useCallback((_event, node) => hover(node.id), [hover]);
  const onLeave: NodeMouseHandler = useCallback(() => hover(null), [hover]);
  const onClick: NodeMouseHandler = useCallback((_event, node) => onSelect(node.id), [onSelect]);

  // In the overview, the pane gets the mouse: find the node under it.
  const hit = useCallback(
    (event: React.MouseEvent) => {
      if (!overview || !current) return null;
      const point = flow.screenToFlowPosition({ x: event.clientX, y: event.clientY });
      return nodeAt(graph, current.result.positions, point);
    },
    [overview, current, flow, graph],
  );
  const onPaneMove = useCallback(
    (event: React.MouseEvent) => {
      if (!overview) return;
      const id = hit(event);
      hover(id);
      if (wrapper.current) wrapper.current.style.cursor = id ? "pointer" : "";
    },
    [overview, hit, hover],
  );
  const onPaneClick = useCallback((event: React.MouseEvent) => onSelect(hit(event)), [hit, onSelect]);
  const onPaneLeave = useCallback(() => hover(null), [hover]);

  return (
    <div
      ref={wrapper}
      className="canvas"
      data-state={ready ? "ready" : "layout"}
      data-nodes={graph.nodes.length}
      data-edges={graph.edges.length}
      data-zoom={level}
      data-overview={overview ? "" : undefined}
      data-lit={anyLit ? "" : undefined}
    >
      {!current && (
        <div className="canvas-overlay">
          <div className="spinner" />
          Laying out {graph.nodes.length.toLocaleString("en-US")} nodes…
        </div>
      )}
      <ReactFlow
        nodes={overview ? EMPTY_NODES : nodes}
        edges={overview ? EMPTY_EDGES : edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodeMouseEnter={onEnter}
        onNodeMouseLeave={onLeave}
        onNodeClick={onClick}
        onPaneClick={onPaneClick}
        onPaneMouseMove={onPaneMove}
        onPaneMouseLeave={onPaneLeave}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onlyRenderVisibleElements={big}
        minZoom={MIN_ZOOM}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        {big && current && overview && <Overview graph={graph} positions={current.result.positions} />}
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} showFitView={false} position="bottom-left">
          <ControlButton
            className="react-flow__controls-fitview"
            title="Fit the whole graph"
            aria-label="Fit view"
            onClick={() => current && fit(current.result.positions, 250, true)}
          >
            <svg viewBox="0 0 32 30" aria-hidden>
              <path d="M3.7 11.1V3.7h7.4V0H0v11.1h3.7zM3.7 18.9H0V30h11.1v-3.7H3.7v-7.4zM28.3 0h-7.4v3.7h7.4v7.4H32V0h-3.7zM28.3 26.3h-7.4V30H32V18.9h-3.7v7.4z" />
            </svg>
          </ControlButton>
        </Controls>
        {!big && (
          <MiniMap
            pannable
            zoomable
            position="bottom-right"
            nodeColor={(n) => KIND_STYLES[(n.data as LineageNodeData).node.kind].color}
            maskColor="rgba(241,245,249,0.7)"
          />
        )}
      </ReactFlow>
    </div>
  );
}

export function LineageCanvas(props: CanvasProps) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}
