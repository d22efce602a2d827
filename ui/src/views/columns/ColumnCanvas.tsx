// The column view's canvas: dataset boxes and field edges (React Flow), the
// transformation of an edge on hover, the edge's job opened on click, and
// "+N more hops" at the canvas's edge on a side the path goes on past. Text is never drawn
// below 11 px: the view never zooms out below READABLE_ZOOM (the smallest
// text is 11 px); a trace too large for the screen opens on the traced
// column and is panned.

import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useNodesInitialized,
  useReactFlow,
  useStore,
  type Node,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { NOTHING_BEYOND, type Beyond } from "./beyond";
import type { VisualKind } from "../../graph/kinds";
import { ColumnBox, type ColumnBoxData } from "./ColumnBox";
import { EdgeLayer, type DrawnEdge } from "./EdgeLayer";
import { EdgeTip } from "./EdgeTip";
import { BOX_WIDTH, boxHeight, layoutBoxes, rowAnchor, type ColumnPicture, type DatasetBox, type FieldEdge } from "./model";
import { MoreHops } from "./MoreHops";

const nodeTypes = { columnBox: ColumnBox };
/** The smallest text of the view is 11 px (columns.css): never zoom out below this. */
export const READABLE_ZOOM = 1;

export interface ColumnCanvasProps {
  picture: ColumnPicture;
  /** A dataset's kind and label, as the lineage graph draws it. */
  look: (box: DatasetBox) => { kind: VisualKind; label: string };
  selectedBox: string | null;
  selectedJob: string | null;
  onTrace: (box: DatasetBox, field: string) => void;
  onOpenDataset: (box: DatasetBox) => void;
  onOpenJob: (job: { namespace: string; name: string }) => void;
  /** Hops each way the path goes on past the depth shown. */
  beyond?: Beyond;
  /** Show `hops` more hops (the depth grows by them). */
  onExtend?: (hops: number) => void;
  /** The traced column's box: where a trace too large for the screen opens. */
  tracedBox?: string;
}

interface Tip {
  edge: FieldEdge;
  x: number;
  y: number;
}

function Canvas({
  picture,
  look,
  selectedBox,
  selectedJob,
  onTrace,
  onOpenDataset,
  onOpenJob,
  beyond = NOTHING_BEYOND,
  onExtend,
  tracedBox,
}: ColumnCanvasProps) {
  const wrapper = useRef<HTMLDivElement>(null);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [tip, setTip] = useState<Tip | null>(null);
  const toggle = useCallback(
    (id: string) =>
      setOpen((current) => {
        const next = new Set(current);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const positions = useMemo(() => layoutBoxes(picture, open), [picture, open]);

  const nodes: Node<ColumnBoxData>[] = useMemo(
    () =>
      picture.boxes.map((box) => {
        const at = positions.get(box.id) ?? { x: 0, y: 0 };
        const isOpen = open.has(box.id);
        return {
          id: box.id,
          type: "columnBox",
          position: at,
          width: BOX_WIDTH,
          height: boxHeight(box, isOpen),
          data: {
            box,
            ...look(box),
            open: isOpen,
            selected: box.id === selectedBox,
            onToggle: toggle,
            onTrace,
            onOpen: onOpenDataset,
          },
        };
      }),
    [picture, positions, open, look, selectedBox, toggle, onTrace, onOpenDataset],
  );

  const edges: DrawnEdge[] = useMemo(() => {
    const out: DrawnEdge[] = [];
    for (const edge of picture.edges) {
      const sourceBox = picture.byId.get(edge.sourceBox);
      const targetBox = picture.byId.get(edge.targetBox);
      const a = positions.get(edge.sourceBox);
      const b = positions.get(edge.targetBox);
      if (!sourceBox || !targetBox || !a || !b) continue;
      const from = rowAnchor(sourceBox, a, edge.source, "out");
      const to = rowAnchor(targetBox, b, edge.target, "in");
      if (!from || !to) continue;
      const lit = selectedJob !== null && edge.job !== null && `${edge.job.namespace}\u0000${edge.job.name}` === selectedJob;
      out.push({ edge, from, to, lit });
    }
    return out;
  }, [picture, positions, selectedJob]);

  const onHover = useCallback((edge: FieldEdge | null, event: React.MouseEvent) => {
    if (!edge) {
      setTip(null);
      return;
    }
    const rect = wrapper.current?.getBoundingClientRect();
    setTip({ edge, x: event.clientX - (rect?.left ?? 0) + 12, y: event.clientY - (rect?.top ?? 0) + 12 });
  }, []);
  const onOpen = useCallback((edge: FieldEdge) => edge.job && onOpenJob(edge.job), [onOpenJob]);

  return (
    <div
      ref={wrapper}
      className="canvas column-canvas"
      data-boxes={picture.boxes.length}
      data-edges={picture.edges.length}
    >
      <ReactFlow
        nodes={nodes}
        nodeTypes={nodeTypes}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        minZoom={READABLE_ZOOM}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        <EdgeLayer edges={edges} onHover={onHover} onOpen={onOpen} />
        <Ready picture={picture} focus={tracedBox ?? null} />
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} />
        {/* Where the rest of a trace too large for the screen is (the view pans, never shrinks text). */}
        <MiniMap pannable position="bottom-right" maskColor="rgba(241,245,249,0.7)" />
      </ReactFlow>
      {tip && <EdgeTip edge={tip.edge} x={tip.x} y={tip.y} />}
      {onExtend && beyond.upstream > 0 && <MoreHops way="upstream" hops={beyond.upstream} onExtend={onExtend} />}
      {onExtend && beyond.downstream > 0 && <MoreHops way="downstream" hops={beyond.downstream} onExtend={onExtend} />}
    </div>
  );
}

/**
 * Fits each new picture into view once React Flow has measured its boxes,
 * no further out than READABLE_ZOOM (a larger picture opens centred on the
 * traced column's box, to be panned), then marks the canvas drawn (what
 * tests and the bench wait for).
 */
function Ready({ picture, focus }: { picture: ColumnPicture; focus: string | null }) {
  const ready = useNodesInitialized({ includeHiddenNodes: true });
  const flow = useReactFlow();
  const width = useStore((s) => s.width);
  const height = useStore((s) => s.height);
  const [fitted, setFitted] = useState<ColumnPicture | null>(null);
  useEffect(() => {
    if (!ready) return;
    const bounds = flow.getNodesBounds(flow.getNodes());
    const padding = 0.08;
    const fits = bounds.width * (1 + 2 * padding) <= width && bounds.height * (1 + 2 * padding) <= height;
    const traced = focus ? flow.getNode(focus) : undefined;
    if (fits || !traced) {
      void flow.fitView({ padding, maxZoom: 1, minZoom: READABLE_ZOOM }).then(() => setFitted(picture));
      return;
    }
    // Centred on the traced box, but with no empty margin on a side where the picture goes on.
    const z = READABLE_ZOOM;
    const margin = 24;
    const clamp = (value: number, lowest: number, highest: number) =>
      lowest > highest ? (lowest + highest) / 2 : Math.min(highest, Math.max(lowest, value));
    const cx = traced.position.x + BOX_WIDTH / 2;
    const cy = traced.position.y + Math.min((traced.height ?? 0) / 2, height / 2 - 40);
    const x = clamp(width / 2 - cx * z, width - margin - (bounds.x + bounds.width) * z, margin - bounds.x * z);
    const y = clamp(height / 2 - cy * z, height - margin - (bounds.y + bounds.height) * z, margin - bounds.y * z);
    void flow.setViewport({ x, y, zoom: z }).then(() => setFitted(picture));
    // Fitted once per picture: not again when the canvas is resized (the details panel opens).
  }, [ready, picture, flow, focus]);
  return ready && fitted === picture ? <span className="column-ready" data-testid="column-ready" hidden /> : null;
}

export function ColumnCanvas(props: ColumnCanvasProps) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}
