// The column view's canvas: dataset boxes and field edges (React Flow), the
// transformation of an edge on hover, the edge's job opened on click.

import {
  Background,
  Controls,
  ReactFlow,
  ReactFlowProvider,
  useNodesInitialized,
  useReactFlow,
  type Node,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { VisualKind } from "../../graph/kinds";
import { ColumnBox, type ColumnBoxData } from "./ColumnBox";
import { EdgeLayer, type DrawnEdge } from "./EdgeLayer";
import { EdgeTip } from "./EdgeTip";
import { BOX_WIDTH, boxHeight, layoutBoxes, rowAnchor, type ColumnPicture, type DatasetBox, type FieldEdge } from "./model";

const nodeTypes = { columnBox: ColumnBox };

export interface ColumnCanvasProps {
  picture: ColumnPicture;
  /** A dataset's kind and label, as the lineage graph draws it. */
  look: (box: DatasetBox) => { kind: VisualKind; label: string };
  selectedBox: string | null;
  selectedJob: string | null;
  onTrace: (box: DatasetBox, field: string) => void;
  onOpenDataset: (box: DatasetBox) => void;
  onOpenJob: (job: { namespace: string; name: string }) => void;
}

interface Tip {
  edge: FieldEdge;
  x: number;
  y: number;
}

function Canvas({ picture, look, selectedBox, selectedJob, onTrace, onOpenDataset, onOpenJob }: ColumnCanvasProps) {
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
        minZoom={0.05}
        maxZoom={2}
        proOptions={{ hideAttribution: true }}
      >
        <EdgeLayer edges={edges} onHover={onHover} onOpen={onOpen} />
        <Ready picture={picture} />
        <Background gap={24} size={1} color="#e2e8f0" />
        <Controls showInteractive={false} />
      </ReactFlow>
      {tip && <EdgeTip edge={tip.edge} x={tip.x} y={tip.y} />}
    </div>
  );
}

/**
 * Fits each new picture into view once React Flow has measured its boxes,
 * then marks the canvas drawn (what tests and the bench wait for).
 */
function Ready({ picture }: { picture: ColumnPicture }) {
  const ready = useNodesInitialized({ includeHiddenNodes: true });
  const { fitView } = useReactFlow();
  const [fitted, setFitted] = useState<ColumnPicture | null>(null);
  useEffect(() => {
    if (!ready) return;
    void fitView({ padding: 0.08, maxZoom: 1 }).then(() => setFitted(picture));
  }, [ready, picture, fitView]);
  return ready && fitted === picture ? <span className="column-ready" data-testid="column-ready" hidden /> : null;
}

export function ColumnCanvas(props: ColumnCanvasProps) {
  return (
    <ReactFlowProvider>
      <Canvas {...props} />
    </ReactFlowProvider>
  );
}
