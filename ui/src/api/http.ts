// GET one path of the server's API, typed by its OpenAPI document (schema.d.ts):
// the path, its parameters and its answer are the server's own.

import type { components, paths } from "./schema";

type ErrorDetail = components["schemas"]["ErrorDetail"];

/** An answer other than 2xx, with the server's error message (and details) when it sent one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
  }
}

/** A time asked before the server's retention horizon: which parameter, and the oldest instant answered. */
export interface BeforeHorizon {
  parameter: string;
  horizon: string;
}

/** What `error` says of the retention horizon, when it is the 400 of a time before it; else null. */
export function beforeHorizon(error: unknown): BeforeHorizon | null {
  if (!(error instanceof ApiError) || error.status !== 400) return null;
  const found = error.details.find((d) => d.code === "before_retention_horizon" && d.horizon);
  return found?.horizon ? { parameter: found.path, horizon: found.horizon } : null;
}

// A read API key, or a Feast access token with the feast authorizer, when the
// server asks for one (openlineage.consumer.authorizer): kept for this browser
// tab only, and sent as Authorization: Bearer, which every authorizer reads.
const KEY_STORAGE = "feast-lineage.api-key";

const keyListeners = new Set<() => void>();

export function setApiKey(key: string | null): void {
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  else sessionStorage.removeItem(KEY_STORAGE);
  for (const listener of keyListeners) listener();
}

/** Call `listener` whenever the key changes (for useSyncExternalStore); returns the unsubscribe. */
export function onApiKeyChange(listener: () => void): () => void {
  keyListeners.add(listener);
  return () => keyListeners.delete(listener);
}

/** Whether a key is kept for this tab (the key itself is never shown back). */
export function hasApiKey(): boolean {
  return sessionStorage.getItem(KEY_STORAGE) !== null;
}

function authHeaders(): Record<string, string> {
  const key = sessionStorage.getItem(KEY_STORAGE);
  return key ? { Authorization: `Bearer ${key}` } : {};
}

/** The paths the server answers a GET on with JSON. */
export type GetPath = {
  [P in keyof paths]: paths[P]["get"] extends { responses: { 200: unknown } } ? P : never;
}[keyof paths];

type Operation<P extends GetPath> = NonNullable<paths[P]["get"]>;

/** The query parameters of a GET path. */
export type QueryOf<P extends GetPath> = Operation<P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The path parameters of a GET path. */
export type PathParams<P extends GetPath> = Operation<P> extends { parameters: { path: infer T } } ? T : never;

/** What a GET path answers with. */
export type Ok<P extends GetPath> =
  Operation<P> extends { responses: { 200: { content: { "application/json": infer T } } } } ? T : never;

/** A path with {placeholders} needs their values. */
type Params<P extends GetPath> = (P extends `${string}{${string}` ? { path: PathParams<P> } : { path?: undefined }) & {
  query?: QueryOf<P>;
};

type ErrorBody = Partial<components["schemas"]["ErrorResponse"]>;

/** The URL of a path, relative so the UI also works under a prefix (feast-lineage ui --root-path). */
function url(path: string, params: { path?: object; query?: object }): string {
  let relative = path.replace(/^\//, "");
  for (const [key, value] of Object.entries(params.path ?? {})) {
    relative = relative.replace(`{${key}}`, encodeURIComponent(String(value)));
  }
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params.query ?? {})) {
    if (value !== null && value !== undefined && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `${relative}?${text}` : relative;
}

/** GETs started before the app ran (early.ts), by URL: each taken by the first get() of its URL. */
const started = new Map<string, Promise<Response>>();

function send(relative: string, signal?: AbortSignal): Promise<Response> {
  return fetch(relative, { signal, headers: { Accept: "application/json", ...authHeaders() } });
}

/** Sends a GET now, for a get() of the same path and parameters to take up later. */
export function startGet<P extends GetPath>(path: P, params: Params<P>): void {
  const relative = url(path, params);
  if (!started.has(relative)) started.set(relative, send(relative));
}

export async function get<P extends GetPath>(path: P, params: Params<P>, signal?: AbortSignal): Promise<Ok<P>> {
  const relative = url(path, params);
  const early = started.get(relative);
  started.delete(relative);
  let response: Response;
  try {
    response = await (early ?? send(relative, signal));
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
    let details: ErrorDetail[] = [];
    try {
      const body = (await response.json()) as ErrorBody;
      if (body.error?.message) message = body.error.message;
      code = body.error?.code ?? null;
      details = body.error?.details ?? [];
    } catch {
      // not JSON: keep the status line
    }
    throw new ApiError(message, response.status, code, details);
  }
  return (await response.json()) as Ok<P>;
}
