// The column view's field edges, drawn as one SVG layer in the canvas's
// coordinates (React Flow's ViewportPortal), not as React Flow edges: a trace
// of a wide dataset has hundreds of edges, and plain paths cost far less than
// an edge component each. An edge runs from the input column's row to the
// output column's row: solid for DIRECT, dashed for INDIRECT (every
// transformation INDIRECT: a filter, join, grouping, ...).

import { ViewportPortal } from "@xyflow/react";
import { memo } from "react";
import type { Point } from "../../graph/layered";
import type { FieldEdge } from "./model";

export interface DrawnEdge {
  edge: FieldEdge;
  from: Point;
  to: Point;
  lit: boolean;
}

function path(a: Point, b: Point): string {
  const bend = Math.max(40, Math.abs(b.x - a.x) / 2);
  return `M ${a.x} ${a.y} C ${a.x + bend} ${a.y} ${b.x - bend} ${b.y} ${b.x} ${b.y}`;
}

interface Props {
  edges: DrawnEdge[];
  onHover: (edge: FieldEdge | null, event: React.MouseEvent) => void;
  onOpen: (edge: FieldEdge) => void;
}

function EdgeLayerView({ edges, onHover, onOpen }: Props) {
  return (
    <ViewportPortal>
      <svg className="column-edges" width={1} height={1}>
        <defs>
          <marker id="cedge-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#2563eb" />
          </marker>
          <marker id="cedge-arrow-indirect" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#a16207" />
          </marker>
        </defs>
        {edges.map(({ edge, from, to, lit }) => {
          const d = path(from, to);
          const change = edge.change ? ` cedge-${edge.change}` : "";
          return (
            <g
              key={edge.id}
              className={`column-edge${change}`}
              data-id={edge.id}
              data-change={edge.change}
              onMouseEnter={(e) => onHover(edge, e)}
              onMouseMove={(e) => onHover(edge, e)}
              onMouseLeave={(e) => onHover(null, e)}
              onClick={() => onOpen(edge)}
            >
              <path
                id={edge.id}
                d={d}
                className={`cedge ${edge.indirect ? "cedge-indirect" : "cedge-direct"}${lit ? " lit-on" : ""}`}
                markerEnd={`url(#${edge.indirect ? "cedge-arrow-indirect" : "cedge-arrow"})`}
              />
              <path d={d} className="cedge-hit" />
              {edge.change && (
                // The change in words beside its colour: never told by colour alone.
                <text
                  className="cedge-change"
                  x={(from.x + to.x) / 2}
                  y={(from.y + to.y) / 2 - 5}
                  textAnchor="middle"
                >
                  {edge.change === "added" ? "+ added" : "− removed"}
                </text>
              )}
            </g>
          );
        })}
      </svg>
    </ViewportPortal>
  );
}

export const EdgeLayer = memo(EdgeLayerView);
