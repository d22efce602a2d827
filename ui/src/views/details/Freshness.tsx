// A node's freshness in words (issue 41), at the top of its details: a
// feature view's source and materialization lags, a failed job's or a stale
// dataset's own state, and the upstream causes of an at-risk node with when
// each began (from the health endpoint's newest problems). The API assesses
// health for now only: a historical view says so instead.

import { useMemo } from "react";
import { CAUSES_QUERY, useHealth } from "../../api/health";
import { HealthMark } from "../../graph/HealthMark";
import type { GraphNode } from "../../types";
import { freshnessClauses } from "../health/words";
import { Section } from "./Section";

/** `historical`: the panel is as of an instant or a window, which the API assesses no health for. */
export function Freshness({ node, historical = false }: { node: GraphNode; historical?: boolean }) {
  const causes = node.health?.causes ?? [];
  const problems = useHealth(CAUSES_QUERY, !historical && causes.some((c) => c.node !== null));
  const clauses = useMemo(() => {
    const since = new Map((problems.data?.problems ?? []).map((p) => [p.node.id, p.since]));
    return freshnessClauses(node, (id) => since.get(id) ?? null, Date.now());
  }, [node, problems.data]);
  // Then, every node is "unknown": not a lack of history, so not said to be one.
  if (historical) {
    return (
      <Section title="Freshness" testid="freshness">
        <p className="muted small">Freshness is known for now only: back to now to see it.</p>
      </Section>
    );
  }
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
