// The graph a page opens on, known from its URL alone: early.ts asks for it
// before the app's code has loaded, prefetchGraph (queries.ts) takes it up.

/** The graph the Lineage tab loads: one page of the API's largest size. */
export const GRAPH_LIMIT = 5000;

/**
 * The namespace filter of the OpenLineage graph the page at `search` opens
 * on (null: all), or undefined when it opens on something else (another
 * tab, the Feast registry's graph).
 */
export function firstGraphNamespace(search: string): string | null | undefined {
  const params = new URLSearchParams(search);
  if ((params.get("tab") ?? "lineage") !== "lineage" || params.get("view") === "feast") return undefined;
  return params.get("ns") || null;
}
