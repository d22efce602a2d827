// A field edge in the column view: from the input column's row to the output
// column's row, solid for DIRECT, dashed for INDIRECT (every transformation
// INDIRECT: a filter, join, grouping, ...).

import { BaseEdge, type EdgeProps } from "@xyflow/react";
import { memo } from "react";
import type { Point } from "../../graph/layered";
import type { FieldEdge } from "./model";

export type ColumnEdgeData = { edge: FieldEdge; from: Point; to: Point; lit: boolean };

function path(a: Point, b: Point): string {
  const bend = Math.max(40, Math.abs(b.x - a.x) / 2);
  return `M ${a.x} ${a.y} C ${a.x + bend} ${a.y} ${b.x - bend} ${b.y} ${b.x} ${b.y}`;
}

function ColumnEdgeViewInner({ id, data, markerEnd }: EdgeProps & { data?: ColumnEdgeData }) {
  if (!data) return null;
  const { edge, from, to, lit } = data;
  const classes = ["cedge", edge.indirect ? "cedge-indirect" : "cedge-direct", lit ? "lit-on" : ""].join(" ");
  return <BaseEdge id={id} path={path(from, to)} markerEnd={markerEnd} className={classes} interactionWidth={14} />;
}

export const ColumnEdgeView = memo(ColumnEdgeViewInner);
