// The health endpoint (issue 41): the open problems, failed jobs and stale
// datasets, each with what it reaches. One query per page of it; the details
// panel reads the first page too, to say when an upstream cause began.

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { get, type QueryOf } from "./http";

const HEALTH = "/api/v1/lineage/openlineage/health";

export type HealthQuery = QueryOf<typeof HEALTH>;
/** The problem kinds the server filters on. */
export type ProblemKind = NonNullable<HealthQuery["kind"]>;
export const PROBLEM_KINDS: readonly ProblemKind[] = ["failed", "stale"];

export function asProblemKind(value: string | null | undefined): ProblemKind | undefined {
  return PROBLEM_KINDS.find((kind) => kind === value);
}

/** Problems change as runs arrive: asked for again after this long on screen. */
const HEALTH_FRESH_MS = 10_000;

export function useHealth(query: HealthQuery, enabled = true) {
  return useQuery({
    queryKey: ["health", query],
    queryFn: ({ signal }) => get(HEALTH, { query }, signal),
    enabled,
    staleTime: HEALTH_FRESH_MS,
    placeholderData: keepPreviousData,
  });
}

/** The first page the panel reads (the newest problems): when each cause began. */
export const CAUSES_QUERY: HealthQuery = { limit: 200 };

const IMPACT = "/api/v1/lineage/openlineage/impact";

/**
 * What a node reaches downstream within `depth` steps, walked as health walks
 * (through nodes the caller may not see, listing only those it may); null: nothing asked.
 */
export function useImpact(node: { type: "job" | "dataset"; namespace: string; name: string } | null, depth: number) {
  return useQuery({
    queryKey: ["impact", node?.type, node?.namespace, node?.name, depth],
    queryFn: ({ signal }) =>
      get(IMPACT, { query: { node_type: node!.type, namespace: node!.namespace, name: node!.name, depth } }, signal),
    enabled: node !== null,
    staleTime: HEALTH_FRESH_MS,
  });
}
