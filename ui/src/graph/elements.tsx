// The node and edge components React Flow draws.

import { BaseEdge, Handle, Position, getBezierPath, type EdgeProps, type NodeProps } from "@xyflow/react";
import { Fragment, memo } from "react";
import { useEdgeLit, useIsSelected, useNodeLit } from "./highlight";
import { KIND_STYLES } from "./kinds";
import type { EdgeKind, LNode } from "./model";

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 60;

/** A name with line-break chances after "_", ".", "/", ":" and "-" (text unchanged). */
function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[_./:-])/);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {part}
          {i < parts.length - 1 && <wbr />}
        </Fragment>
      ))}
    </>
  );
}

export type LineageNodeData = { node: LNode; center: boolean };

function LineageNodeView({ id, data }: NodeProps & { data: LineageNodeData }) {
  const lit = useNodeLit(id);
  const selected = useIsSelected(id);
  const { node, center } = data;
  const style = KIND_STYLES[node.kind];
  const classes = [
    "lnode",
    `shape-${style.shape}`,
    lit ? "lit-on" : "",
    selected ? "is-selected" : "",
    center ? "is-center" : "",
  ].join(" ");
  return (
    <div
      className={classes}
      style={{ borderColor: style.color, background: style.fill }}
      title={node.title}
      data-kind={node.kind}
      data-node-id={node.id}
      data-label={node.label}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <div className="lnode-top">
        <span className="lnode-badge" style={{ background: style.color }}>
          {style.label}
        </span>
        {node.producer && <span className="lnode-producer">{node.producer}</span>}
      </div>
      <div className="lnode-label">
        <Breakable text={node.label} />
      </div>
      <div className="lnode-sub">
        {node.sublabel}
        {node.aliases.length > 0 && (
          <span className="lnode-aliases">
            {" "}
            · {node.aliases.length} alias{node.aliases.length === 1 ? "" : "es"}
          </span>
        )}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
}

export const LineageNode = memo(LineageNodeView);

export type LineageEdgeData = { kind: EdgeKind };

function LineageEdgeView(props: EdgeProps & { data?: LineageEdgeData }) {
  const lit = useEdgeLit(props.id);
  const [path] = getBezierPath({
    sourceX: props.sourceX,
    sourceY: props.sourceY,
    sourcePosition: props.sourcePosition,
    targetX: props.targetX,
    targetY: props.targetY,
    targetPosition: props.targetPosition,
  });
  const kind = props.data?.kind ?? "io";
  return (
    <BaseEdge
      id={props.id}
      path={path}
      markerEnd={props.markerEnd}
      className={`ledge ledge-${kind}${lit ? " lit-on" : ""}`}
    />
  );
}

export const LineageEdge = memo(LineageEdgeView);

export const nodeTypes = { lineage: LineageNode };
export const edgeTypes = { lineage: LineageEdge };
