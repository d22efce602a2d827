// The HTTP client: one function per endpoint the UI reads, same origin.

import type {
  DatasetItem,
  Direction,
  EventItem,
  GraphNode,
  GraphPage,
  JobItem,
  NamespaceItem,
  Page,
  RegistryLineage,
  RegistryObject,
  RunDetail,
  RunItem,
  Subgraph,
  UiSettings,
} from "./types";

// Relative, so the UI also works under a path prefix (feast-lineage ui --root-path).
const OL = "api/v1/lineage/openlineage";

/** An answer other than 2xx, with the server's error message when it sent one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | null | undefined>;

// A read API key, or a Feast access token with the feast authorizer, when the
// server asks for one (openlineage.consumer.authorizer): kept for this browser
// tab only, and sent as Authorization: Bearer, which every authorizer reads.
const KEY_STORAGE = "feast-lineage.api-key";

export function setApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
}

function authHeaders(): Record<string, string> {
  const key = sessionStorage.getItem(KEY_STORAGE);
  return key ? { Authorization: `Bearer ${key}` } : {};
}

function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== "") params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function getJson<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(withQuery(path, query), {
      signal,
      headers: { Accept: "application/json", ...authHeaders() },
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(
      "The lineage server did not answer. Is `feast-lineage ui` still running?",
      0,
      "unreachable",
    );
  }
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let code: string | null = null;
    try {
      const body = (await response.json()) as { error?: { message?: string; code?: string } };
      if (body.error?.message) message = body.error.message;
      code = body.error?.code ?? null;
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(message, response.status, code);
  }
  return (await response.json()) as T;
}

export const api = {
  settings: (signal?: AbortSignal) => getJson<UiSettings>("api/v1/ui/settings", {}, signal),

  graph: (namespace: string | null, limit: number, signal?: AbortSignal) =>
    getJson<GraphPage>(`${OL}/graph`, { namespace, limit }, signal),

  subgraph: (
    kind: "job" | "dataset",
    namespace: string,
    name: string,
    depth: number,
    direction: Direction,
    signal?: AbortSignal,
  ) => getJson<Subgraph>(`${OL}/graph/node`, { type: kind, namespace, name, depth, direction }, signal),

  /** One node with its facets (a subgraph of depth 0). */
  node: async (kind: "job" | "dataset", namespace: string, name: string, signal?: AbortSignal) => {
    const sub = await api.subgraph(kind, namespace, name, 0, "both", signal);
    const node = sub.nodes.find((n: GraphNode) => n.id === sub.center) ?? sub.nodes[0];
    if (!node) throw new ApiError(`${kind} ${namespace} ${name} was not found`, 404, "not_found");
    return node;
  },

  namespaces: (signal?: AbortSignal) =>
    getJson<{ items: NamespaceItem[]; total: number }>(`${OL}/namespaces`, {}, signal),

  jobs: (q: Query, signal?: AbortSignal) => getJson<Page<JobItem>>(`${OL}/jobs`, q, signal),

  datasets: (q: Query, signal?: AbortSignal) =>
    getJson<Page<DatasetItem>>(`${OL}/datasets`, q, signal),

  events: (q: Query, signal?: AbortSignal) => getJson<Page<EventItem>>(`${OL}/events`, q, signal),

  runs: (q: Query, signal?: AbortSignal) => getJson<Page<RunItem>>(`${OL}/runs`, q, signal),

  run: (runId: string, signal?: AbortSignal) =>
    getJson<RunDetail>(`${OL}/runs/${encodeURIComponent(runId)}`, {}, signal),

  registry: (project: string | null, signal?: AbortSignal) =>
    project
      ? getJson<RegistryLineage>("api/v1/lineage/registry", { project }, signal)
      : getJson<RegistryLineage>("api/v1/lineage/registry/all", {}, signal),

  registryObject: (project: string, type: string, name: string, signal?: AbortSignal) =>
    getJson<RegistryObject>(
      `api/v1/lineage/objects/${encodeURIComponent(type)}/${encodeURIComponent(name)}`,
      { project },
      signal,
    ),
};
