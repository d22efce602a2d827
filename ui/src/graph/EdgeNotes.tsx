// The words on edges (edgeLabels.ts) of a graph drawn as DOM nodes: one layer
// in React Flow's viewport, over the nodes (its own viewport portal lies
// under them, for the pipelines' frames), each label where placeEdgeLabels
// put it, scaled by the canvas's --label-scale (viewport.ts, labelScale) so
// zooming re-renders none of them.

import { useStore } from "@xyflow/react";
import { memo } from "react";
import { createPortal } from "react-dom";
import type { Point } from "./layered";
import { useEdgeLit } from "./highlight";
import type { Change } from "./model";

export interface EdgeNote {
  /** The edge's id. */
  id: string;
  at: Point;
  words: string;
  change?: Change;
}

function NoteView({ note }: { note: EdgeNote }) {
  const lit = useEdgeLit(note.id);
  const classes = ["ledge-note", lit ? "lit-on" : "", note.change ? `change-${note.change}` : ""].join(" ");
  return (
    <div className={classes} data-edge-id={note.id} style={{ left: note.at.x, top: note.at.y }}>
      <span className="react-flow__edge-text">{note.words}</span>
    </div>
  );
}

const Note = memo(NoteView);

export function EdgeNotes({ notes }: { notes: EdgeNote[] }) {
  const viewport = useStore((s) => s.domNode?.querySelector(".react-flow__viewport") ?? null);
  if (notes.length === 0 || !viewport) return null;
  return createPortal(
    <div className="ledge-notes">
      {notes.map((note) => (
        <Note key={note.id} note={note} />
      ))}
    </div>,
    viewport,
  );
}
