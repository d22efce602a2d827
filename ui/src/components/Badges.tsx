// Small coloured labels: a node's kind, a run's state, an event's type.

import { KIND_STYLES, type VisualKind } from "../graph/kinds";

export function KindBadge({ kind }: { kind: VisualKind }) {
  const style = KIND_STYLES[kind];
  return (
    <span className="kind-badge" style={{ background: style.color }}>
      {style.label}
    </span>
  );
}

export function StateBadge({ state }: { state: string | null }) {
  const value = (state ?? "OTHER").toUpperCase();
  return <span className={`state-badge state-${value.toLowerCase()}`}>{value}</span>;
}
