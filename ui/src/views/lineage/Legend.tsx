// The legend under the graph: each kind of node shown, with its count; each
// kind of edge other than plain inputs and outputs, drawn as on the graph,
// explained on hover; and what the colours of a lit path, the selection and
// a failed run mean.

import { useMemo } from "react";
import { EDGE_MEANINGS, EDGE_SWATCHES, KIND_STYLES, LEGEND_ORDER, type VisualKind } from "../../graph/kinds";
import type { EdgeKind, LGraph } from "../../graph/model";
import { HealthLegend } from "../health/HealthLegend";

/** Edge kinds the legend lists, in order, when the graph has them. */
const EDGE_ORDER: EdgeKind[] = ["parent", "jobjob", "same", "derived", "hidden"];

export function Legend({ graph }: { graph: LGraph | null }) {
  const kindsShown = useMemo(() => {
    const counts = new Map<VisualKind, number>();
    for (const node of graph?.nodes ?? []) counts.set(node.kind, (counts.get(node.kind) ?? 0) + 1);
    return LEGEND_ORDER.filter((k) => counts.has(k)).map((k) => [k, counts.get(k) ?? 0] as const);
  }, [graph]);
  const edgesShown = useMemo(() => {
    const kinds = new Set(graph?.edges.map((e) => e.kind));
    return EDGE_ORDER.filter((k) => kinds.has(k));
  }, [graph]);
  const failed = useMemo(() => graph?.nodes.some((n) => n.state === "failed") ?? false, [graph]);
  if (kindsShown.length === 0) return null;
  return (
    <div className="legend" aria-label="Legend">
      {kindsShown.map(([kind, count]) => (
        <span key={kind} className="legend-item">
          <span className="legend-swatch" style={{ background: KIND_STYLES[kind].fill, borderColor: KIND_STYLES[kind].color }} />
          {KIND_STYLES[kind].label} <span className="muted">{count}</span>
        </span>
      ))}
      {edgesShown.map((kind) => (
        <span key={kind} className="legend-item legend-edge" data-edge={kind} title={EDGE_MEANINGS[kind].hint}>
          <svg className="legend-edge-line" width="26" height="8" aria-hidden>
            <line
              x1="1"
              y1="4"
              x2="25"
              y2="4"
              stroke={EDGE_SWATCHES[kind].color}
              strokeWidth="2"
              strokeDasharray={EDGE_SWATCHES[kind].dash.join(" ") || undefined}
            />
          </svg>
          {EDGE_MEANINGS[kind].label}
        </span>
      ))}
      <span className="legend-item" data-legend="selection" title="The selected node and the path through it (or through the node under the mouse)">
        <span className="legend-swatch legend-select" />
        selected · path
      </span>
      <HealthLegend graph={graph} />
      {failed && (
        <span className="legend-item" data-legend="failed" title="A job whose latest run failed: red is for failure only">
          <span className="legend-swatch legend-failed" />
          failed run
        </span>
      )}
    </div>
  );
}
