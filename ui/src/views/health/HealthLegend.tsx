// The legend's health items (issue 41): each state the graph shows, with its
// glyph, its ring and how many nodes have it; what it means on hover.

import { useMemo } from "react";
import { HEALTH_MARKS, markedHealth, MARKED_ORDER, type Marked } from "../../graph/healthOverlay";
import { HealthGlyph } from "../../graph/HealthMark";
import type { LGraph } from "../../graph/model";

export function HealthLegend({ graph }: { graph: LGraph | null }) {
  const counts = useMemo(() => {
    const found = new Map<Marked, number>();
    for (const node of graph?.nodes ?? []) {
      const state = markedHealth(node);
      if (state) found.set(state, (found.get(state) ?? 0) + 1);
    }
    return MARKED_ORDER.filter((s) => found.has(s)).map((s) => [s, found.get(s) ?? 0] as const);
  }, [graph]);
  return (
    <>
      {counts.map(([state, count]) => (
        <span key={state} className="legend-item legend-health" data-legend={`health-${state}`} title={HEALTH_MARKS[state].hint}>
          <HealthGlyph state={state} size={14} />
          {HEALTH_MARKS[state].label} <span className="muted">{count}</span>
        </span>
      ))}
    </>
  );
}
