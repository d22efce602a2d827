// The legend under the graph: each kind of node shown, with its count.

import { useMemo } from "react";
import { KIND_STYLES, LEGEND_ORDER, type VisualKind } from "../../graph/kinds";
import type { LGraph } from "../../graph/model";

export function Legend({ graph }: { graph: LGraph | null }) {
  const kindsShown = useMemo(() => {
    const counts = new Map<VisualKind, number>();
    for (const node of graph?.nodes ?? []) counts.set(node.kind, (counts.get(node.kind) ?? 0) + 1);
    return LEGEND_ORDER.filter((k) => counts.has(k)).map((k) => [k, counts.get(k) ?? 0] as const);
  }, [graph]);
  if (kindsShown.length === 0) return null;
  return (
    <div className="legend" aria-label="Legend">
      {kindsShown.map(([kind, count]) => (
        <span key={kind} className="legend-item">
          <span className="legend-swatch" style={{ background: KIND_STYLES[kind].fill, borderColor: KIND_STYLES[kind].color }} />
          {KIND_STYLES[kind].label} <span className="muted">{count}</span>
        </span>
      ))}
    </div>
  );
}
