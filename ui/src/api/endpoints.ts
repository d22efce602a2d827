// One function per endpoint the UI reads; each takes the AbortSignal that
// cancels it (TanStack Query passes its own: see queries.ts).

import type { Direction, GraphNode, NodeKind } from "../types";
import { ApiError, get, startGet, type PathParams, type QueryOf } from "./http";

const OL = "/api/v1/lineage/openlineage";
/** A page of a dataset's or job's versions (newest first). */
export const VERSIONS_PAGE = 50;

export type JobsQuery = QueryOf<`${typeof OL}/jobs`>;
export type DatasetsQuery = QueryOf<`${typeof OL}/datasets`>;
export type EventsQuery = QueryOf<`${typeof OL}/events`>;
export type RunsQuery = QueryOf<`${typeof OL}/runs`>;
/** The event types the events filter takes (the server's enum). */
export type EventType = NonNullable<EventsQuery["event_type"]>;
const EVENT_TYPES: readonly EventType[] = ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"];
/** The object types of the registry's object endpoint (the server's enum). */
export type RegistryObjectType = PathParams<"/api/v1/lineage/objects/{object_type}/{object_name}">["object_type"];

const REGISTRY_OBJECT_TYPES: readonly RegistryObjectType[] = [
  "entity",
  "data_source",
  "feature_view",
  "on_demand_feature_view",
  "stream_feature_view",
  "feature_service",
  "saved_dataset",
];

/** Whether ``value`` is an object type of the registry's object endpoint. */
export function isRegistryObjectType(value: string): value is RegistryObjectType {
  return (REGISTRY_OBJECT_TYPES as readonly string[]).includes(value);
}

/** ``value`` as an event type the server takes, else undefined (a stale or hand-made URL). */
export function asEventType(value: string | null | undefined): EventType | undefined {
  const upper = value?.toUpperCase();
  return EVENT_TYPES.find((type) => type === upper);
}

/** Sends the graph's GET now (main.tsx), for api.graph with the same arguments to take up. */
export function startGraph(namespace: string | null, limit: number): void {
  startGet(`${OL}/graph`, { query: { namespace, limit } });
}

/** Sends the settings' GET now (main.tsx), for api.settings to take up. */
export function startSettings(): void {
  startGet("/api/v1/ui/settings", {});
}

/**
 * When the Lineage tab answers for (issue 40): now (all null), as of an
 * instant, or what the runs of a window observed. ISO 8601 instants.
 */
export interface History {
  as_of?: string | null;
  since?: string | null;
  until?: string | null;
}

/** What "Changes since…" compares: two instants, and the centre of a focused view (none: the whole graph). */
export interface DiffQuery {
  from: string;
  /** ISO 8601; null: now. */
  to: string | null;
  center: { type: NodeKind; namespace: string; name: string; depth: number; direction: Direction } | null;
  /** The whole graph's diff in this namespace only (as the graph shown is narrowed); not with a center. */
  within?: string | null;
}

/** "Now" for the diff's `to`: a future instant is now (the server resolves it), and the query key stays the same. */
const FAR_FUTURE = "9999-12-31T00:00:00Z";

/**
 * Query parameters the server's OpenAPI document does not list yet (another
 * change adds `as_of` to the catalog and `since`/`until` to the columns); the
 * server ignores unknown ones until then.
 */
export function withParams<Q extends object>(query: Q, extra: Record<string, string | null | undefined>): Q {
  return { ...query, ...extra };
}

export const api = {
  settings: (signal?: AbortSignal) => get("/api/v1/ui/settings", {}, signal),

  graph: (namespace: string | null, limit: number, signal?: AbortSignal, history: History = {}) =>
    get(`${OL}/graph`, { query: { namespace, limit, ...history } }, signal),

  subgraph: (
    kind: NodeKind,
    namespace: string,
    name: string,
    depth: number,
    direction: Direction,
    signal?: AbortSignal,
    history: History = {},
  ) => get(`${OL}/graph/node`, { query: { type: kind, namespace, name, depth, direction, ...history } }, signal),

  /** One node with its facets (a subgraph of depth 0). */
  node: async (
    kind: NodeKind,
    namespace: string,
    name: string,
    signal?: AbortSignal,
    history: History = {},
  ): Promise<GraphNode> => {
    const sub = await api.subgraph(kind, namespace, name, 0, "both", signal, history);
    const node = sub.nodes.find((n) => n.id === sub.center) ?? sub.nodes[0];
    if (!node) throw new ApiError(`${kind} ${namespace} ${name} was not found`, 404, "not_found");
    return node;
  },

  /** What changed between two instants (GET /lineage/diff): of the whole graph, or around a centre. */
  diff: (query: DiffQuery, signal?: AbortSignal) => {
    const c = query.center;
    return get(
      `${OL}/lineage/diff`,
      {
        query: {
          from: query.from,
          to: query.to ?? FAR_FUTURE,
          ...(c ? { node_type: c.type, namespace: c.namespace, name: c.name, depth: c.depth, direction: c.direction } : {}),
          ...(!c && query.within ? { within: query.within } : {}),
        },
      },
      signal,
    );
  },

  namespaces: (signal?: AbortSignal) => get(`${OL}/namespaces`, {}, signal),

  jobs: (query: JobsQuery, signal?: AbortSignal) => get(`${OL}/jobs`, { query }, signal),

  datasets: (query: DatasetsQuery, signal?: AbortSignal) => get(`${OL}/datasets`, { query }, signal),

  events: (query: EventsQuery, signal?: AbortSignal) => get(`${OL}/events`, { query }, signal),

  runs: (query: RunsQuery, signal?: AbortSignal) => get(`${OL}/runs`, { query }, signal),

  run: (runId: string, signal?: AbortSignal) => get(`${OL}/runs/{run_id}`, { path: { run_id: runId } }, signal),

  /** A page of a dataset's versions; `until`: those before it only (null: all). */
  datasetVersions: (namespace: string, name: string, offset: number, until: string | null, signal?: AbortSignal) =>
    get(
      `${OL}/datasets/{namespace}/{name}/versions`,
      { path: { namespace, name }, query: { limit: VERSIONS_PAGE, offset, until } },
      signal,
    ),

  datasetVersion: (namespace: string, name: string, id: string, signal?: AbortSignal) =>
    get(`${OL}/datasets/{namespace}/{name}/versions/{version_id}`, { path: { namespace, name, version_id: id } }, signal),

  /** A page of a job's versions; `until`: those first run before it only (null: all). */
  jobVersions: (namespace: string, name: string, offset: number, until: string | null, signal?: AbortSignal) =>
    get(
      `${OL}/jobs/{namespace}/{name}/versions`,
      { path: { namespace, name }, query: { limit: VERSIONS_PAGE, offset, until } },
      signal,
    ),

  /** One job version; `until`: as it stood then, as the list with that `until` lists it (null: now). */
  jobVersion: (namespace: string, name: string, id: string, until: string | null, signal?: AbortSignal) =>
    get(
      `${OL}/jobs/{namespace}/{name}/versions/{version_id}`,
      { path: { namespace, name, version_id: id }, query: { until } },
      signal,
    ),

  runTree: (runId: string, signal?: AbortSignal) =>
    get(`${OL}/runs/{run_id}/tree`, { path: { run_id: runId } }, signal),

  registry: (project: string | null, signal?: AbortSignal) =>
    project
      ? get("/api/v1/lineage/registry", { query: { project } }, signal)
      : get("/api/v1/lineage/registry/all", {}, signal),

  /** The repository's own project: a 403 says the caller may not see it. */
  registryOwnProject: (signal?: AbortSignal) => get("/api/v1/lineage/registry", {}, signal),

  registryObject: (project: string, type: RegistryObjectType, name: string, signal?: AbortSignal) =>
    get(
      "/api/v1/lineage/objects/{object_type}/{object_name}",
      { path: { object_type: type, object_name: name }, query: { project } },
      signal,
    ),
};
