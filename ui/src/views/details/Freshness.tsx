// A node's freshness in words (issue 41), at the top of its details: a
// feature view's source and materialization lags, a failed job's or a stale
// dataset's own state, and the upstream causes of an at-risk node with when
// each began (from the health endpoint's newest problems).

import { useMemo } from "react";
import { CAUSES_QUERY, useHealth } from "../../api/health";
import { HealthMark } from "../../graph/HealthMark";
import type { GraphNode } from "../../types";
import { freshnessClauses } from "../health/words";
import { Section } from "./Section";

export function Freshness({ node }: { node: GraphNode }) {
  const causes = node.health?.causes ?? [];
  const problems = useHealth(CAUSES_QUERY, causes.some((c) => c.node !== null));
  const clauses = useMemo(() => {
    const since = new Map((problems.data?.problems ?? []).map((p) => [p.node.id, p.since]));
    return freshnessClauses(node, (id) => since.get(id) ?? null, Date.now());
  }, [node, problems.data]);
  if (clauses.length === 0) return null;
  const state = node.state === "failed" || node.state === "stale" || node.state === "at_risk" ? node.state : null;
  return (
    <Section title="Freshness" testid="freshness">
      <p className="freshness" data-state={node.state}>
        {state && <HealthMark state={state} />}{" "}
        {clauses.map((clause, i) => (
          <span key={i} className="freshness-clause">
            {i > 0 && ", "}
            {clause.words}
            {clause.name && <code>{clause.name}</code>}
            {clause.rest}
          </span>
        ))}
      </p>
      {node.health?.error && <p className="muted small">{node.health.error}</p>}
    </Section>
  );
}
