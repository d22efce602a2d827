// The node and edge components React Flow draws.

import { BaseEdge, Handle, Position, getBezierPath, type EdgeProps, type NodeProps } from "@xyflow/react";
import { memo, useMemo } from "react";
import { useEdgeLit, useIsSelected, useNodeLit } from "./highlight";
import { markedHealth } from "./healthOverlay";
import { HealthMark } from "./HealthMark";
import { EDGE_MEANINGS, KIND_STYLES } from "./kinds";
import { TURN, type Point } from "./layered";
import { font, measure, middleEllipsis, twoLines } from "./labels";
import { changeText, type Change, type EdgeKind, type LGraph, type LNode } from "./model";

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 80;

/** The width of a node's text: the node less its borders and padding (pills pad more). */
export function textWidth(shape: string): number {
  return NODE_WIDTH - 4 - (shape === "pill" ? 40 : 20);
}

export { font } from "./labels";

/** Sizes of the stylesheet's node text (styles.css, "graph nodes"). */
export const LABEL_PX = 13;
export const NAME_PX = 22; // zoomed out: the name alone, on up to two lines
export const SUB_PX = 10;
export const TAG_PX = 14; // zoomed out: the kind of a node whose name another node has too

/** Names that more than one node of `graph` has: those nodes say their kind in words. */
export function sharedNames(graph: LGraph): Set<string> {
  const seen = new Set<string>();
  const shared = new Set<string>();
  for (const node of graph.nodes) {
    if (seen.has(node.label)) shared.add(node.label);
    else seen.add(node.label);
  }
  return shared;
}

export interface NodeText {
  /** The name on one line (near), shortened in the middle to fit. */
  label: string;
  /** The name on up to two lines, larger (zoomed out). */
  name: [string, string];
  sub: string;
  aliases: string;
  /** The node's kind in words, zoomed out, when another node has the same name; else "". */
  tag: string;
}

/** A node's text, shortened to fit the node (the DOM node and the canvas draw the same). */
export function nodeText(node: LNode, tagged = false): NodeText {
  const width = textWidth(KIND_STYLES[node.kind].shape);
  const aliases = node.aliases.length ? ` · ${node.aliases.length} alias${node.aliases.length === 1 ? "" : "es"}` : "";
  return {
    label: middleEllipsis(node.label, width, font(600, LABEL_PX), node.own),
    name: twoLines(node.label, width, font(600, NAME_PX), node.own),
    sub: middleEllipsis(node.sublabel, width - (aliases ? 4 + measure(aliases, font(600, SUB_PX)) : 0), font(400, SUB_PX)),
    aliases,
    tag: tagged ? KIND_STYLES[node.kind].label.toLowerCase() : "",
  };
}

export type LineageNodeData = { node: LNode; center: boolean; tagged: boolean };

function LineageNodeView({ id, data }: NodeProps & { data: LineageNodeData }) {
  const lit = useNodeLit(id);
  const selected = useIsSelected(id);
  const { node, center, tagged } = data;
  const style = KIND_STYLES[node.kind];
  const text = useMemo(() => nodeText(node, tagged), [node, tagged]);
  const health = markedHealth(node);
  const mark = changeText(node);
  const classes = [
    "lnode",
    `shape-${style.shape}`,
    lit ? "lit-on" : "",
    selected ? "is-selected" : "",
    center ? "is-center" : "",
    node.change ? `change-${node.change}` : "",
  ].join(" ");
  return (
    <>
    <div
      className={classes}
      style={{ borderColor: style.color, background: style.fill }}
      title={node.title}
      data-kind={node.kind}
      data-node-id={node.id}
      data-label={node.label}
      data-state={node.state ?? undefined}
      data-health={health ?? undefined}
      data-change={node.change}
    >
      <Handle type="target" position={Position.Left} isConnectable={false} />
      {health && <HealthMark state={health} zoomedOut />}
      <div className="lnode-top">
        {health && <HealthMark state={health} />}
        <span className="lnode-badge" style={{ background: style.color }}>
          {style.label}
        </span>
        {node.producer && <span className="lnode-producer">{node.producer}</span>}
        {node.state && (
          <span className={`lnode-state run-${node.state}`} data-state={node.state} title={`Latest run: ${node.state}`}>
            {node.state}
          </span>
        )}
      </div>
      <div className="lnode-label">{text.label}</div>
      <div className="lnode-name" aria-hidden>
        {text.tag && (
          <span className="lnode-tag" style={{ color: style.color }}>
            {text.tag}
          </span>
        )}
        <span className="lnode-line">{text.name[0]}</span>
        {text.name[1] && <span className="lnode-line">{text.name[1]}</span>}
      </div>
      <div className="lnode-sub">
        <span className="lnode-ns">{text.sub}</span>
        {text.aliases && <span className="lnode-aliases">{text.aliases}</span>}
      </div>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
    {/* Beside the node, not in it: a node with a health ring clips what leaves its box. */}
    {mark && (
      <span className={`lnode-change change-${node.change}`}>
        {mark.icon} {mark.words}
      </span>
    )}
    </>
  );
}

export const LineageNode = memo(LineageNodeView);

/**
 * An edge's route (layered.ts: through the lanes of the layers it crosses)
 * as a path: straight through each layer, a curve across each gap. An edge
 * folded from one row to the next goes down from its source's right side,
 * back left along its lane between the rows, and down into its target's
 * left side: each turn (two points one above the other) is a half loop.
 */
export function routePath(points: Point[]): string {
  let path = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1];
    const b = points[i];
    if (a.y === b.y) path += ` L ${b.x} ${b.y}`;
    else if (a.x === b.x) {
      // A turn: out to the right and back before going left, or in from the left after.
      const next = points[i + 1];
      const x = next && next.x < b.x ? a.x + TURN : a.x - TURN;
      path += ` C ${x} ${a.y} ${x} ${b.y} ${b.x} ${b.y}`;
    } else {
      const mid = (a.x + b.x) / 2;
      path += ` C ${mid} ${a.y} ${mid} ${b.y} ${b.x} ${b.y}`;
    }
  }
  return path;
}

export type LineageEdgeData = { kind: EdgeKind; route?: Point[]; origin?: string; change?: Change };

function LineageEdgeView(props: EdgeProps & { data?: LineageEdgeData }) {
  const lit = useEdgeLit(props.id);
  const route = props.data?.route;
  const routed = route && route.length >= 2;
  const path = routed
    ? routePath(route)
    : getBezierPath({
        sourceX: props.sourceX,
        sourceY: props.sourceY,
        sourcePosition: props.sourcePosition,
        targetX: props.targetX,
        targetY: props.targetY,
        targetPosition: props.targetPosition,
      })[0];
  const kind = props.data?.kind ?? "io";
  const origin = props.data?.origin;
  const change = props.data?.change;
  // Its words (a window's run count, a change) are drawn over the nodes: EdgeNotes.tsx.
  const edge = (
    <BaseEdge
      id={props.id}
      path={path}
      markerEnd={props.markerEnd}
      className={`ledge ledge-${kind}${lit ? " lit-on" : ""}${change ? ` change-${change}` : ""}`}
    />
  );
  if (origin) {
    // Explicit lineage: its origin shows on hover (the browser's tooltip of the edge).
    return (
      <g className="ledge-explicit" data-origin={origin}>
        <title>{`${kind === "jobjob" ? "job → job" : "explicit lineage"}: ${origin}`}</title>
        {edge}
      </g>
    );
  }
  if (kind === "io" || kind === "registry") return edge;
  // A parent → child, same-data or folded edge says what it is on hover.
  return (
    <g className="ledge-explained" data-kind={kind}>
      <title>{`${EDGE_MEANINGS[kind].label}: ${EDGE_MEANINGS[kind].hint}`}</title>
      {edge}
    </g>
  );
}

export const LineageEdge = memo(LineageEdgeView);

export const nodeTypes = { lineage: LineageNode };
export const edgeTypes = { lineage: LineageEdge };
