// The column view's state in the URL, beside the lineage tab's keys:
//   col_ns, col_ds   the traced column's dataset (namespace, name)
//   col              the traced column (field)
//   depth, dir       as in the focus view (default depth here: 3)
//   col_indirect     "0": leave INDIRECT edges (filters, joins, grouping) out
//   as_of            the column lineage as of this instant (history/time.ts)
//   seen_since, seen_until   "seen during": the edges the window's runs observed
// Clearing col_ns, col_ds and col goes back to the dataset graph (and its
// focus, which the column view keeps).

import type { ColumnQuery } from "../../api/columns";
import { parseDepth } from "../../depth";
import { timeView } from "../../history/time";
import type { Patch, Route } from "../../route";

export const COLUMN_DEPTHS = [1, 2, 3, 4, 5, 10, 20];
/** The API's greatest depth ("all"). */
export const MAX_DEPTH = 20;
const DEFAULT_DEPTH = 3;

export interface Trace {
  namespace: string;
  name: string;
  field: string;
  direction: ColumnQuery["direction"];
  depth: number;
  indirect: boolean;
  /** The Lineage tab's as_of (issue 40): the trace as of then; null: now. */
  asOf: string | null;
  /** The Lineage tab's "seen during" window: its bounds; null: none (until null: now). */
  since: string | null;
  until: string | null;
}

/** The traced column the URL names, or null (the dataset graph). */
export function traceOf(route: Route): Trace | null {
  const namespace = route.col_ns;
  const name = route.col_ds;
  const field = route.col;
  if (namespace === undefined || !name || !field) return null;
  const time = timeView(route);
  return {
    namespace,
    name,
    field,
    direction: route.dir === "upstream" || route.dir === "downstream" ? route.dir : "both",
    depth: parseDepth(route.depth) ?? DEFAULT_DEPTH,
    indirect: route.col_indirect !== "0",
    asOf: time.asOf,
    since: time.since,
    until: time.until,
  };
}

/** The route change that traces `field` of a dataset (null: back to the dataset graph). */
export function tracePatch(target: { namespace: string; name: string; field: string } | null): Patch {
  if (target === null) return { col_ns: null, col_ds: null, col: null, col_indirect: null };
  return { col_ns: target.namespace, col_ds: target.name, col: target.field };
}

export function traceQuery(trace: Trace): ColumnQuery {
  return { ...trace };
}

/** The trace a page's query string names (for prefetching it), or null. */
export function traceOfSearch(search: string): Trace | null {
  const params = new URLSearchParams(search);
  if ((params.get("tab") ?? "lineage") !== "lineage" || params.get("view") === "feast") return null;
  const route: Record<string, string> = {};
  params.forEach((value, key) => {
    if (value !== "") route[key] = value;
  });
  return traceOf(route);
}
