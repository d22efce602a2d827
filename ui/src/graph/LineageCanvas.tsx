// The graph canvas: lays the graph out, draws it with React Flow, lights the
// hovered (or selected) node's upstream and downstream path.
//
// Small graphs are drawn by React Flow, a DOM element per node and edge.
// Large graphs (more than BIG_GRAPH nodes) are painted on one <canvas>
// (Overview, paint.ts) at every zoom, text included: thousands of DOM nodes
// would make every pan frame slow; React Flow then only holds the viewport,
// and a navigation map (NavMap) shows where in the whole graph the view is.
// Separate pipelines are framed apart (Groups).

import { Background, ReactFlow, ReactFlowProvider, useStore } from "@xyflow/react";
import { useLayoutEffect, useMemo, useRef, type RefObject } from "react";
import { CanvasControls } from "./CanvasControls";
import { EdgeNotes } from "./EdgeNotes";
import { edgeTypes, nodeTypes } from "./elements";
import { Groups } from "./Groups";
import { groupBoxes } from "./groups";
import { useAnyLit } from "./highlight";
import type { LGraph } from "./model";
import { NavMap } from "./NavMap";
import { Overview } from "./Overview";
import { buildScene } from "./paint";
import { EMPTY_EDGES, EMPTY_NODES, useLaidOut } from "./useLaidOut";
import { useNodeKeys } from "./useNodeKeys";
import { usePathLight } from "./usePathLight";
import { usePointer } from "./usePointer";
import { LEGEND_ROOM, useFit, useKeepInView } from "./useViewport";
import { BIG_GRAPH, labelScale, MIN_ZOOM, OVERVIEW_ZOOM, zoomLevel } from "./viewport";

export interface CanvasProps {
  graph: LGraph;
  center: string | null;
  selected: string | null;
  onSelect: (id: string | null) => void;
}

/**
 * Sets the canvas's --label-scale (viewport.ts, labelScale) as the zoom
 * changes: the stylesheet scales edge labels and node changes by it, so
 * zooming re-renders nothing.
 */
function LabelScale({ target }: { target: RefObject<HTMLDivElement | null> }) {
  const scale = useStore((s) => Math.ceil(labelScale(s.transform[2]) * 100) / 100);
  useLayoutEffect(() => {
    target.current?.style.setProperty("--label-scale", String(scale));
  }, [target, scale]);
  return null;
}

function Canvas({ graph, center, selected, onSelect }: CanvasProps) {
  const wrapper = useRef<HTMLDivElement>(null);
  const big = graph.nodes.length > BIG_GRAPH;
  const level = useStore((s) => zoomLevel(s.transform[2]));
  const overview = useStore((s) => big && s.transform[2] < OVERVIEW_ZOOM);
  const anyLit = useAnyLit();

  const fit = useFit(wrapper, center ?? selected, graph);
  const { layout, nodes, edges, notes, ready } = useLaidOut(
    graph,
    center,
    (positions) => fit(positions),
    () => {
      const box = wrapper.current?.getBoundingClientRect();
      return box && box.width > 0 ? { width: box.width, height: box.height - LEGEND_ROOM } : undefined;
    },
  );
  const positions = layout?.positions ?? null;
  const scene = useMemo(
    () => (big && layout ? buildScene(graph, layout.positions, layout.routes) : null),
    [big, graph, layout],
  );
  const groups = useMemo(() => (positions ? groupBoxes(graph, positions) : []), [graph, positions]);
  const hover = usePathLight(graph, selected);
  useKeepInView(wrapper, positions, ready, selected);
  const pointer = usePointer({ scene, hover, onSelect, wrapper });
  const keys = useNodeKeys(onSelect, hover, selected ?? null);

  return (
    <div
      ref={wrapper}
      className="canvas"
      data-state={ready ? "ready" : "layout"}
      data-nodes={graph.nodes.length}
      data-edges={graph.edges.length}
      data-zoom={level}
      data-overview={overview ? "" : undefined}
      data-painted={big ? "" : undefined}
      data-lit={anyLit ? "" : undefined}
      {...keys.wrapper}
    >
      {!layout && (
        <div className="canvas-overlay">
          <div className="spinner" />
          Laying out {graph.nodes.length.toLocaleString("en-US")} nodes…
        </div>
      )}
      <ReactFlow
        nodes={big ? EMPTY_NODES : nodes}
        edges={big ? EMPTY_EDGES : edges}
        nodeTypes={nodeTypes}
        edgeTypes={edgeTypes}
        {...pointer}
        {...keys.flow}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        minZoom={MIN_ZOOM}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        <LabelScale target={wrapper} />
        {scene && <Overview scene={scene} center={center} />}
        {!big && <EdgeNotes notes={notes} />}
        {positions && <Groups boxes={groups} />}
        {/* A dotted background repaints the whole screen at each pan frame: not under a painted graph. */}
        {!big && <Background gap={24} size={1} color="#e2e8f0" />}
        <CanvasControls big={big} onFit={() => positions && fit(positions, 250, true)} />
        {big && positions && <NavMap graph={graph} positions={positions} groups={groups} />}
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
