// The graph canvas: lays the graph out, draws it with React Flow, lights the
// hovered (or selected) node's upstream and downstream path.

import {
  Background,
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
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { edgeTypes, NODE_HEIGHT, NODE_WIDTH, nodeTypes, type LineageNodeData } from "./elements";
import { setLit, setSelected } from "./highlight";
import { KIND_STYLES } from "./kinds";
import { layout, type LayoutResult } from "./layout";
import { connectedPath, type LGraph } from "./model";

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

const FAR_ZOOM = 0.4;
const BIG_GRAPH = 400;

function ZoomClass({ target }: { target: React.RefObject<HTMLDivElement | null> }) {
  const far = useStore((s) => s.transform[2] < FAR_ZOOM);
  useEffect(() => {
    target.current?.classList.toggle("zoom-far", far);
  }, [far, target]);
  return null;
}

function Canvas({ graph, center, selected, onSelect }: CanvasProps) {
  const wrapper = useRef<HTMLDivElement>(null);
  const flow = useReactFlow();
  const [laid, setLaid] = useState<{ graph: LGraph; result: LayoutResult } | null>(null);
  const [ready, setReady] = useState(false);

  useEffect(() => {
    let cancelled = false;
    setReady(false);
    const sized = graph.nodes.map((n) => ({ id: n.id, width: NODE_WIDTH, height: NODE_HEIGHT }));
    const links = graph.edges.map((e) => ({ source: e.source, target: e.target }));
    layout(sized, links).then((result) => {
      if (!cancelled) setLaid({ graph, result });
    });
    return () => {
      cancelled = true;
    };
  }, [graph]);

  const current = laid && laid.graph === graph ? laid : null;

  const nodes = useMemo<Node<LineageNodeData>[]>(() => {
    if (!current) return [];
    return graph.nodes.map((node) => {
      const p = current.result.positions.get(node.id) ?? { x: 0, y: 0 };
      return {
        id: node.id,
        type: "lineage",
        position: p,
        data: { node, center: node.id === center },
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
        draggable: false,
        connectable: false,
      };
    });
  }, [current, graph, center]);

  const edges = useMemo<Edge[]>(() => {
    if (!current) return [];
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

  // Once laid out: fit, and tell the page (and its tests) the graph is drawn.
  useEffect(() => {
    if (!current) return;
    let frame = requestAnimationFrame(() => {
      flow.fitView({ padding: 0.08, maxZoom: 1.1, minZoom: 0.02 });
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
  }, [current, flow, graph]);

  // Light the selected node's path; bring it into view when chosen elsewhere.
  const hovering = useRef(false);
  useEffect(() => {
    setSelected(selected);
    if (!hovering.current) {
      if (selected && graph.byId.has(selected)) {
        const path = connectedPath(graph, selected);
        setLit(path.nodes, path.edges);
      } else setLit(null, null);
    }
  }, [selected, graph]);
  const lastCentered = useRef<string | null>(null);
  useEffect(() => {
    if (!ready || !current || !selected || lastCentered.current === selected) return;
    lastCentered.current = selected;
    const p = current.result.positions.get(selected);
    if (!p) return;
    const bounds = wrapper.current?.getBoundingClientRect();
    const { x, y, zoom } = flow.getViewport();
    const sx = p.x * zoom + x;
    const sy = p.y * zoom + y;
    const visible =
      bounds && sx > 0 && sy > 0 && sx + NODE_WIDTH * zoom < bounds.width && sy < bounds.height;
    if (!visible) {
      flow.setCenter(p.x + NODE_WIDTH / 2, p.y + NODE_HEIGHT / 2, { zoom: Math.max(zoom, 0.8), duration: 300 });
    }
  }, [ready, current, selected, flow]);
  useEffect(() => () => setLit(null, null), []);

  const onEnter: NodeMouseHandler = useCallback(
    (_event, node) => {
      hovering.current = true;
      const path = connectedPath(graph, node.id);
      setLit(path.nodes, path.edges);
    },
    [graph],
  );
  const onLeave: NodeMouseHandler = useCallback(() => {
    hovering.current = false;
    if (selected && graph.byId.has(selected)) {
      const path = connectedPath(graph, selected);
      setLit(path.nodes, path.edges);
    } else setLit(null, null);
  }, [graph, selected]);
  const onClick: NodeMouseHandler = useCallback((_event, node) => onSelect(node.id), [onSelect]);
  const onPaneClick = useCallback(() => onSelect(null), [onSelect]);

  const big = graph.nodes.length > BIG_GRAPH;
  return (
    <div
      ref={wrapper}
      className="canvas"
      data-state={ready ? "ready" : "layout"}
      data-nodes={graph.nodes.length}
      data-edges={graph.edges.length}
    >
      {!current && (
        <div className="canvas-overlay">
          <div className="spinner" />
          Laying out {graph.nodes.length.toLocaleString("en-US")} nodes…
        </div>
      )}
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        onNodeMouseEnter={onEnter}
        onNodeMouseLeave={onLeave}
        onNodeClick={onClick}
        onPaneClick={onPaneClick}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        onlyRenderVisibleElements={big}
        minZoom={0.02}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
        fitView={false}
      >
        <ZoomClass target={wrapper} />
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} position="bottom-left" />
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
