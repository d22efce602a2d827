// Freshness in words (issue 41): "source written 3 h ago, materialized to 2 h
// ago, upstream `airflow/BQ.upload` failed 40 min ago". Pure functions of a
// node's health and the time now, for the details panel and the Health tab.

import { formatTime } from "../../format";
import { zoneName } from "../../zone";
import type { GraphNode, HealthCause } from "../../types";

/** A length of time in the largest unit that keeps it readable: "12 s", "40 min", "3 h", "2 d" (never below 0). */
export function span(seconds: number): string {
  const s = Math.max(0, seconds);
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

/** A time `seconds` before now, in words: "3 h ago"; one after now (a negative lag) "3 h from now (in the future)", never "0 s ago". */
export function ago(seconds: number): string {
  return seconds < 0 ? `${span(-seconds)} from now (in the future)` : `${span(seconds)} ago`;
}

/** How long before `now` (ms) the instant `iso` was, in words; null when it is not a time. */
export function agoFrom(iso: string | null | undefined, now: number): string | null {
  if (!iso) return null;
  const at = Date.parse(iso);
  return Number.isNaN(at) ? null : ago((now - at) / 1000);
}

/**
 * How far a feature view is materialized: "materialized to 2 h ago"; an interval that ends
 * in the future (`feast materialize 2020-01-01 2099-01-01`: a negative lag) by its end,
 * "materialized to 2099-01-01 12:00:00 Europe/Paris (in the future)".
 */
export function materializedWords(lag: number, to: string | null | undefined): string {
  if (lag < 0 && to) return `materialized to ${formatTime(to)} ${zoneName()} (in the future)`;
  return `materialized to ${ago(lag)}`;
}

/** One clause of the sentence: words, then maybe a node's name (drawn as code), then more words. */
export interface Clause {
  words: string;
  name?: string;
  rest?: string;
}

/** The clause about an upstream cause; `since` is when it began, when known. */
export function causeClause(cause: HealthCause, since: string | null, now: number): Clause {
  const when = agoFrom(since, now);
  const verb = cause.state === "failed" ? "failed" : "went stale";
  const rest = when ? ` ${verb} ${when}` : ` ${cause.state}`;
  if (cause.node === null) return { words: `${cause.label}${rest}` };
  return { words: "upstream ", name: cause.label, rest };
}

/**
 * What the panel says of a node's freshness, clause by clause (empty: nothing
 * to say). `sinceOf` says when a cause (by node id) began, when known.
 */
export function freshnessClauses(node: GraphNode, sinceOf: (id: string) => string | null, now: number): Clause[] {
  const health = node.health ?? null;
  const out: Clause[] = [];
  if (health?.source_lag_seconds != null) out.push({ words: `source written ${ago(health.source_lag_seconds)}` });
  if (health?.materialization_lag_seconds != null) {
    out.push({ words: materializedWords(health.materialization_lag_seconds, health.materialized_to) });
  }
  const since = agoFrom(health?.since, now);
  if (node.state === "failed") out.push({ words: since ? `latest run failed ${since}` : "latest run failed" });
  const written = node.kind === "dataset" && health?.materialization_lag_seconds == null ? agoFrom(health?.last_write, now) : null;
  if (written) out.push({ words: `last written ${written}` });
  if (health?.expected_interval_seconds != null && node.kind === "dataset") {
    const source = health.interval_source ? ` (${INTERVAL_SOURCES[health.interval_source]})` : "";
    out.push({ words: `expected every ${span(health.expected_interval_seconds)}${source}` });
  }
  if (node.state === "stale" && since) out.push({ words: `stale since ${since}` });
  if (node.state === "unknown") out.push({ words: "too little history to tell when it is due" });
  for (const cause of health?.causes ?? []) out.push(causeClause(cause, cause.node ? sinceOf(cause.node) : null, now));
  return out;
}

const INTERVAL_SOURCES: Record<NonNullable<NonNullable<GraphNode["health"]>["interval_source"]>, string> = {
  configured: "configured",
  feast: "Feast's ttl and materialization cadence",
  learned: "learned from its writes",
};
