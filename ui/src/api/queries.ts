// The UI's data: one hook per thing a view reads, each a TanStack Query query
// (configured in queryClient.ts). A query's AbortSignal goes to fetch, so a
// request nobody waits for any more (the view moved on) is cancelled.
//
// Lists and pages keep the previous answer on screen while the next loads
// (`keepPreviousData`, with aria-busy on the table); a view that changes
// subject (another node, another namespace) shows "Loading" instead.

import { keepPreviousData, useInfiniteQuery, useQuery, type QueryClient } from "@tanstack/react-query";
import type { CatalogPage, Direction, JobPage, NodeKind, RunDetail, RunItem, RunPage } from "../types";
import { datasetRow, jobRow } from "../types";
import {
  api,
  isRegistryObjectType,
  type History,
  type DatasetsQuery,
  type DiffQuery,
  withParams,
  type EventsQuery,
  type JobsQuery,
  type RegistryObjectType,
  type RunsQuery,
} from "./endpoints";
import { firstGraphNamespace, GRAPH_LIMIT } from "./firstGraph";
import { runThen, untilOf } from "../history/time";

/** A job or dataset, by namespace and name. */
export interface NodeRef {
  type: NodeKind;
  namespace: string;
  name: string;
}

/** The settings change only with the server's configuration: not asked for again on each mount. */
const SETTINGS_FRESH_MS = 60_000;

export function useSettings() {
  return useQuery({ queryKey: ["settings"], queryFn: ({ signal }) => api.settings(signal), staleTime: SETTINGS_FRESH_MS });
}

/** Takes up the settings main.tsx asked for as the page started. */
export function prefetchSettings(client: QueryClient): void {
  void client.prefetchQuery({ queryKey: ["settings"], queryFn: ({ signal }) => api.settings(signal), staleTime: SETTINGS_FRESH_MS });
}

export { GRAPH_LIMIT } from "./firstGraph";
const GRAPH_FRESH_MS = 10_000;

/**
 * Asks for the Lineage tab's graph as the page starts, beside the settings
 * (which only tell whether the server has it), so the two do not wait for
 * each other. The Lineage tab's useGraph then finds it asked for or there.
 */
export function prefetchGraph(client: QueryClient, search: string): void {
  const namespace = firstGraphNamespace(search);
  if (namespace === undefined) return;
  void client.prefetchQuery({
    queryKey: ["graph", namespace, GRAPH_LIMIT],
    queryFn: ({ signal }) => api.graph(namespace, GRAPH_LIMIT, signal),
  });
}

/** A query key's part for a history (none for now: the key prefetchGraph used). */
const historyKey = (history: History) => (history.as_of || history.since || history.until ? [history] : []);

/**
 * The OpenLineage graph (its first `limit` nodes), now or as `history` says;
 * `enabled` false: not asked for.
 */
export function useGraph(namespace: string | null, limit: number, enabled: boolean, history: History = {}) {
  return useQuery({
    queryKey: ["graph", namespace, limit, ...historyKey(history)],
    queryFn: ({ signal }) => api.graph(namespace, limit, signal, history),
    enabled,
    // The graph prefetchGraph asked for as the page started is not asked for
    // again when the tab opens a moment later.
    staleTime: GRAPH_FRESH_MS,
  });
}

/** The registry lineage of every project. */
export function useRegistry(enabled: boolean) {
  return useQuery({ queryKey: ["registry"], queryFn: ({ signal }) => api.registry(null, signal), enabled });
}

/**
 * The repository's own project, asked when the registry view shows nothing:
 * a 403 (or 401) tells a registry the caller may not see from an empty one.
 */
export function useOwnProject(enabled: boolean) {
  return useQuery({ queryKey: ["registry-own-project"], queryFn: ({ signal }) => api.registryOwnProject(signal), enabled });
}

/** A node's neighbourhood, now or as `history` says; the one shown stays until the next arrives. */
export function useSubgraph(center: NodeRef | null, depth: number, direction: Direction, history: History = {}) {
  return useQuery({
    queryKey: ["subgraph", center?.type, center?.namespace, center?.name, depth, direction, ...historyKey(history)],
    queryFn: ({ signal }) =>
      api.subgraph(center!.type, center!.namespace, center!.name, depth, direction, signal, history),
    enabled: center !== null,
    placeholderData: keepPreviousData,
  });
}

/** "Changes since…": what changed between two instants (the server's diff); null: nothing asked. */
export function useDiff(query: DiffQuery | null) {
  return useQuery({
    queryKey: ["diff", query],
    queryFn: ({ signal }) => api.diff(query!, signal),
    enabled: query !== null,
    // The same staleness as the graph it is drawn over.
    staleTime: GRAPH_FRESH_MS,
  });
}

/** One node with its facets, now or as of an instant; null: nothing to ask (the graph has it). */
export function useNode(node: NodeRef | null, history: History = {}) {
  return useQuery({
    queryKey: ["node", node?.type, node?.namespace, node?.name, ...historyKey(history)],
    queryFn: ({ signal }) => api.node(node!.type, node!.namespace, node!.name, signal, history),
    enabled: node !== null,
  });
}

export function useRegistryObject(project: string, type: string, name: string) {
  return useQuery({
    queryKey: ["registry-object", project, type, name],
    // A node of the registry view is one of the endpoint's object types.
    enabled: isRegistryObjectType(type),
    queryFn: ({ signal }) => api.registryObject(project, type as RegistryObjectType, name, signal),
  });
}

export function useNamespaces(enabled = true) {
  return useQuery({ queryKey: ["namespaces"], queryFn: ({ signal }) => api.namespaces(signal), enabled });
}

/** What the Jobs and Datasets tabs ask for: filters, a page, and the order. */
export type CatalogQuery = Omit<JobsQuery & DatasetsQuery, "sort"> & { sort?: string | null };

/** A page of the Jobs or Datasets tab. */
export function useCatalog(kind: NodeKind, query: CatalogQuery) {
  return useQuery({
    queryKey: [kind === "job" ? "jobs" : "datasets", query],
    queryFn: async ({ signal }): Promise<CatalogPage> => {
      // The sort is a column id of the table; the server names the one it does not know.
      const { sort, ...rest } = query;
      if (kind === "job") {
        const { jobs, ...page } = await api.jobs({ ...rest, sort: (sort ?? undefined) as JobsQuery["sort"] }, signal);
        return { ...page, items: jobs.map(jobRow) };
      }
      const { datasets, ...page } = await api.datasets({ ...rest, sort: (sort ?? undefined) as DatasetsQuery["sort"] }, signal);
      return { ...page, items: datasets.map(datasetRow) };
    },
    placeholderData: keepPreviousData,
  });
}

const jobNamesOf = (page: JobPage) => [...new Set(page.jobs.map((job) => job.job_name))];

/** The names of a namespace's jobs (the first 1000), for the Events tab's job filter. */
export function useJobNames(namespace: string | null) {
  return useQuery({
    queryKey: ["jobs", { namespace, limit: 1000 }],
    queryFn: ({ signal }) => api.jobs({ namespace, limit: 1000 }, signal),
    select: jobNamesOf,
    placeholderData: keepPreviousData,
  });
}

export function useEvents(query: EventsQuery) {
  return useQuery({
    queryKey: ["events", query],
    queryFn: ({ signal }) => api.events(query, signal),
    placeholderData: keepPreviousData,
  });
}

export interface RunsWithDetail {
  page: RunPage;
  /** Run id -> the run with its inputs, outputs and facets (when it could be read). */
  details: Record<string, RunDetail>;
}

/**
 * A page of a job's runs, each with its detail (for its rows written, and to
 * open it); `until`: the runs started before it only (null: all).
 */
export function useRuns(namespace: string, name: string, limit: number, offset: number, until: string | null = null) {
  return useQuery({
    queryKey: ["runs", namespace, name, limit, offset, ...(until ? [until] : [])],
    queryFn: async ({ signal }): Promise<RunsWithDetail> => {
      const page = await api.runs({ job_namespace: namespace, job_name: name, limit, offset, until }, signal);
      const details = await Promise.all(page.runs.map((run) => api.run(run.run_id, signal).catch(() => null)));
      const byId: Record<string, RunDetail> = {};
      for (const detail of details) if (detail) byId[detail.run_id] = detail;
      return { page, details: byId };
    },
    placeholderData: keepPreviousData,
  });
}

/** The jobs that write and read a dataset (its current edges), and its latest write. */
export interface DatasetUse {
  writers: NodeRef[];
  readers: NodeRef[];
  /** The newest run of a writer that wrote it, with what its outputStatistics say. */
  latestWrite: { run: RunDetail; rows: number | null; bytes: number | null } | null;
}

const WRITERS_LOOKED_AT = 5;
const RUNS_LOOKED_AT = 5;
/** Runs asked for at once past the first page, when those were under way at the instant. */
const RUNS_PAGED_ON = 100;

/**
 * The newest RUNS_LOOKED_AT runs of `job` that had no event after `asOf`
 * (now: its newest runs): those whose outputs are as they were then. The API
 * bounds the runs by their start (`until`), not their last event: the runs
 * started by then with later events (under way then) are skipped, and as many
 * pages asked for as it takes, so that a job whose latest runs were all under
 * way then still has its earlier runs looked at.
 */
async function runsBy(job: NodeRef, asOf: string | null, signal: AbortSignal): Promise<RunItem[]> {
  const kept: RunItem[] = [];
  let offset = 0;
  let limit = RUNS_LOOKED_AT;
  for (;;) {
    const page = await api.runs(
      { job_namespace: job.namespace, job_name: job.name, limit, offset, until: untilOf(asOf) },
      signal,
    );
    kept.push(...page.runs.filter((run) => !runThen(run, asOf).laterEvents));
    offset += page.runs.length;
    if (kept.length >= RUNS_LOOKED_AT || page.runs.length === 0 || offset >= page.total) {
      return kept.slice(0, RUNS_LOOKED_AT);
    }
    limit = RUNS_PAGED_ON;
  }
}

/** A dataset's writers, readers and latest write, now or as of `asOf` (its edges then, its runs up to then). */
export function useDatasetUse(namespace: string, name: string, asOf: string | null = null) {
  return useQuery({
    queryKey: ["dataset-use", namespace, name, ...(asOf ? [asOf] : [])],
    queryFn: async ({ signal }): Promise<DatasetUse> => {
      const sub = await api.subgraph("dataset", namespace, name, 1, "both", signal, { as_of: asOf });
      const byId = new Map(sub.nodes.map((n) => [n.id, n]));
      const ref = (id: string): NodeRef[] => {
        const node = byId.get(id);
        return node && node.kind === "job" ? [{ type: "job", namespace: node.namespace, name: node.name }] : [];
      };
      const writers = sub.edges.filter((e) => e.type === "output" && e.target === sub.center).flatMap((e) => ref(e.source));
      const readers = sub.edges.filter((e) => e.type === "input" && e.source === sub.center).flatMap((e) => ref(e.target));
      // As of an instant: the runs with no event after it (what one under way then had written is not known).
      const pages = await Promise.all(writers.slice(0, WRITERS_LOOKED_AT).map((job) => runsBy(job, asOf, signal)));
      const runs = pages.flat().sort((a, b) => (b.started_at ?? 0) - (a.started_at ?? 0));
      let latestWrite: DatasetUse["latestWrite"] = null;
      for (const run of runs) {
        const detail = await api.run(run.run_id, signal);
        const output = detail.outputs.find((o) => o.namespace === namespace && o.name === name);
        if (!output) continue;
        const stats = output.facets?.outputStatistics as { rowCount?: unknown; size?: unknown } | undefined;
        latestWrite = {
          run: detail,
          rows: typeof stats?.rowCount === "number" ? stats.rowCount : null,
          bytes: typeof stats?.size === "number" ? stats.size : null,
        };
        break;
      }
      return { writers, readers, latestWrite };
    },
  });
}

/** A page of the Runs tab: runs across jobs, filtered and sorted on the server. */
export function useRunList(query: Omit<RunsQuery, "sort"> & { sort?: string | null }) {
  return useQuery({
    queryKey: ["run-list", query],
    queryFn: ({ signal }) => {
      const { sort, ...rest } = query;
      return api.runs({ ...rest, sort: (sort ?? undefined) as RunsQuery["sort"] }, signal);
    },
    placeholderData: keepPreviousData,
  });
}

/** Jobs and datasets whose names contain `text`, from the server (the graph may not hold them all). */
export function useNodeSearch(text: string, enabled: boolean, asOf: string | null = null) {
  return useQuery({
    queryKey: ["node-search", text, ...(asOf ? [asOf] : [])],
    queryFn: async ({ signal }): Promise<NodeRef[]> => {
      // As of the time control's instant: the catalog of then (the server's as_of).
      const [datasets, jobs] = await Promise.all([
        api.datasets(withParams({ search: text, limit: 8 }, { as_of: asOf }), signal),
        api.jobs(withParams({ search: text, limit: 4 }, { as_of: asOf }), signal),
      ]);
      return [
        ...datasets.datasets.map((d) => ({ type: "dataset" as const, namespace: d.dataset_namespace, name: d.dataset_name })),
        ...jobs.jobs.map((j) => ({ type: "job" as const, namespace: j.job_namespace, name: j.job_name })),
      ];
    },
    enabled,
    placeholderData: keepPreviousData,
  });
}

/** The offset of the next page of versions, or undefined when every one is loaded. */
function nextVersions(last: { versions: unknown[]; total: number }, pages: { versions: unknown[] }[]): number | undefined {
  const loaded = pages.reduce((sum, page) => sum + page.versions.length, 0);
  return last.versions.length > 0 && loaded < last.total ? loaded : undefined;
}

/**
 * A dataset's versions, newest first, a page (VERSIONS_PAGE) at a time ("Show
 * older" asks for the next); `until`: those before it only (null: all).
 */
export function useDatasetVersions(namespace: string, name: string, until: string | null = null) {
  return useInfiniteQuery({
    queryKey: ["dataset-versions", namespace, name, ...(until ? [until] : [])],
    queryFn: ({ signal, pageParam }) => api.datasetVersions(namespace, name, pageParam, until, signal),
    initialPageParam: 0,
    getNextPageParam: nextVersions,
  });
}

/** One dataset version with its full schema and its diff to the previous one; null id: none asked. */
export function useDatasetVersion(namespace: string, name: string, id: string | null) {
  return useQuery({
    queryKey: ["dataset-version", namespace, name, id],
    queryFn: ({ signal }) => api.datasetVersion(namespace, name, id!, signal),
    enabled: id !== null,
  });
}

/** A job's versions, newest first, a page (VERSIONS_PAGE) at a time; `until`: those first run before it only. */
export function useJobVersions(namespace: string, name: string, until: string | null = null) {
  return useInfiniteQuery({
    queryKey: ["job-versions", namespace, name, ...(until ? [until] : [])],
    queryFn: ({ signal, pageParam }) => api.jobVersions(namespace, name, pageParam, until, signal),
    initialPageParam: 0,
    getNextPageParam: nextVersions,
  });
}

/** One job version with what changed from the one before; null id: none asked; `until`: as it stood then. */
export function useJobVersion(namespace: string, name: string, id: string | null, until: string | null = null) {
  return useQuery({
    queryKey: ["job-version", namespace, name, id, ...(until ? [until] : [])],
    queryFn: ({ signal }) => api.jobVersion(namespace, name, id!, until, signal),
    enabled: id !== null,
  });
}

/** A run's tree: its root, parents and children. */
export function useRunTree(runId: string | null) {
  return useQuery({
    queryKey: ["run-tree", runId],
    queryFn: ({ signal }) => api.runTree(runId!, signal),
    enabled: runId !== null,
  });
}
