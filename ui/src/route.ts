// The view lives in the URL's query string, so a copied link opens the same
// tab, node, filters and page. Keys (all optional):
//   tab       lineage (default) | events | runs | jobs | datasets | health
//   view      lineage tab: "feast" for the Feast-only (registry) graph
//   ns        namespace filter (lineage, events, jobs, datasets)
//   focus_type, focus_ns, focus   lineage tab: the node whose upstream/downstream is shown
//   depth     focus depth (default 2); dir: both | upstream | downstream
//   jobs      lineage tab: "all" jobs, "none" (datasets only); default: all but Feast apply jobs
//   node_type, node_ns, node   the node open in the details panel (selection.ts: refPatch)
//   col_ns, col_ds, col, col_indirect   the column view (views/columns/trace.ts)
//   run, runs_offset, dsver, jobver   inside the node open in the details panel:
//             its run expanded, page of runs, versions (dropped with the node: DETAIL_KEYS)
//   jobver_at the instant the open job version is read as of (a diff's earlier side;
//             "now"; else the time control's): a version a run under way then ran
//             opens too. A change of the time control's instant carries the one a
//             version open was read as of into it, and drops it when it comes back
//             to it (history/jobVersionAt.ts)
//   q         search text (jobs, datasets)
//   job, type, since, until, run_id   events filters
//   job, state, since, until          runs filters (job: name contains)
//   sort      runs, jobs, datasets: the server's sort key, "-" before it for descending
//   offset    the first row of the page (events, runs, jobs, datasets)
//   ev        the event whose JSON is open
//   kind      health: failed | stale (the problems listed)

import { useCallback, useEffect, useState } from "react";

export type Route = Readonly<Record<string, string>>;

/**
 * The path of the UI's one page: "/" (or the prefix it is served under). A
 * page at another path is the server's not-found page, which sets <base> to
 * the UI's path (routes/ui.py).
 */
export function appPath(): string {
  return new URL(".", document.baseURI).pathname;
}

/** Whether this page is at a path the UI does not have (the server answered 404 with it). */
export function isUnknownPath(): boolean {
  return window.location.pathname !== appPath();
}

function read(): Route {
  const out: Record<string, string> = {};
  new URLSearchParams(window.location.search).forEach((value, key) => {
    if (value !== "") out[key] = value;
  });
  return out;
}

function write(route: Route, push: boolean): void {
  const params = new URLSearchParams();
  for (const key of Object.keys(route).sort(keyOrder)) {
    const value = route[key];
    if (value !== undefined && value !== "") params.set(key, value);
  }
  const search = params.toString();
  // From the not-found page, to the UI's page.
  const url = `${appPath()}${search ? `?${search}` : ""}`;
  if (url === `${window.location.pathname}${window.location.search}`) return;
  if (push) window.history.pushState(null, "", url);
  else window.history.replaceState(null, "", url);
}

const ORDER = ["tab", "view", "ns", "focus", "depth", "dir", "sel", "run"];
function keyOrder(a: string, b: string): number {
  const ia = ORDER.indexOf(a);
  const ib = ORDER.indexOf(b);
  return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
}

export type Patch = Record<string, string | number | null | undefined | false>;

/** How a view changes the route (push: a new history entry). */
export type Navigate = (patch: Patch, options?: { push?: boolean }) => void;

export function applyPatch(route: Route, patch: Patch): Route {
  const next: Record<string, string> = { ...route };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined || value === false || value === "") delete next[key];
    else next[key] = String(value);
  }
  return next;
}

/** What a change of the route becomes (the route after it, given the one before). */
export type Settle = (before: Route, after: Route) => Route;

const asPatched: Settle = (_before, after) => after;

/**
 * The current route and a function to change it (push: a new history entry).
 * `settle` (a function that stays the same) may complete each change the page makes;
 * the browser's back and forward give the route of their entry as it was.
 */
export function useRoute(
  settle: Settle = asPatched,
): [Route, (patch: Patch, options?: { push?: boolean; replace?: boolean }) => void] {
  const [route, setRoute] = useState<Route>(read);
  useEffect(() => {
    const onPop = () => setRoute(read());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const update = useCallback(
    (patch: Patch, options: { push?: boolean; replace?: boolean } = {}) => {
      setRoute((current) => {
        const next = settle(current, options.replace ? applyPatch({}, patch) : applyPatch(current, patch));
        write(next, options.push ?? false);
        return next;
      });
    },
    [settle],
  );
  return [route, update];
}

/** The first row of a list's page, as the URL's `offset` names it (0 when it names none). */
export function pageOffset(route: Route): number {
  return Math.max(0, Math.floor(Number(route.offset ?? 0)) || 0);
}

export function hrefFor(route: Route): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(route).sort(keyOrder)) params.set(key, route[key]);
  const search = params.toString();
  return `${appPath()}${search ? `?${search}` : ""}`;
}
