// When the Lineage tab answers for (issue 40), as the URL keeps it:
//   as_of          an ISO instant: the lineage as it stood then (default: now)
//   seen           a "seen during" window: 24h | 7d | custom, with
//   seen_since, seen_until   its ISO bounds (written when it is picked, so a
//                  link shows the same window later)
//   changes_since  an ISO instant: what changed from then to as_of (or now)
// as_of and a window exclude each other (the API takes one or the other).

import type { History } from "../api/endpoints";
import type { Patch, Route } from "../route";

export type WindowPreset = "24h" | "7d" | "custom";

export interface TimeView {
  asOf: string | null;
  window: WindowPreset | null;
  since: string | null;
  until: string | null;
  changesSince: string | null;
}

/** An ISO instant the URL gave, else null (a hand-made or stale value is ignored). */
export function instant(value: string | undefined): string | null {
  if (!value) return null;
  const time = Date.parse(value);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

export function timeView(route: Route): TimeView {
  const window = route.seen === "24h" || route.seen === "7d" || route.seen === "custom" ? route.seen : null;
  const since = window ? instant(route.seen_since) : null;
  const until = window ? instant(route.seen_until) : null;
  return {
    asOf: window ? null : instant(route.as_of),
    window: since || until ? window : null,
    since,
    until,
    changesSince: window ? null : instant(route.changes_since),
  };
}

/** What the graph endpoints are asked for; {} is now. */
export function historyQuery(view: TimeView): History {
  if (view.window) return { since: view.since, until: view.until };
  if (view.asOf) return { as_of: view.asOf };
  return {};
}

/** Whether the view is not the current graph. */
export function isHistorical(view: TimeView): boolean {
  return view.asOf !== null || view.window !== null;
}

const HOUR_MS = 3_600_000;

/** The route change for a window preset, its bounds from `now` (ms). */
export function windowPatch(preset: WindowPreset | null, now: number, since?: string, until?: string): Patch {
  if (preset === null) return { seen: null, seen_since: null, seen_until: null };
  const span = preset === "24h" ? 24 * HOUR_MS : 7 * 24 * HOUR_MS;
  const from = preset === "custom" ? (since ?? new Date(now - span).toISOString()) : new Date(now - span).toISOString();
  return {
    seen: preset,
    seen_since: from,
    seen_until: preset === "custom" ? (until ?? null) : null,
    as_of: null,
    changes_since: null,
  };
}

/** The value of a datetime-local input (local time, to the second) for an ISO instant. */
export function toLocalInput(iso: string | null): string {
  if (!iso) return "";
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A datetime-local input's value (local time) as an ISO instant; null when empty or invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const time = new Date(value).getTime();
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** The instant "as of this run" means: its end (a run still running: now, null). */
export function runInstant(run: { state?: string | null; ended_at_iso?: string | null }): string | null {
  return run.ended_at_iso ? instant(run.ended_at_iso) : null;
}

/** To the Lineage tab as of a run's end ("as of this run"), or the changes since then. */
export function runTimePatch(run: { state?: string | null; ended_at_iso?: string | null }, what: "as_of" | "changes_since"): Patch {
  const at = runInstant(run);
  return {
    tab: null,
    seen: null,
    seen_since: null,
    seen_until: null,
    as_of: what === "as_of" ? at : null,
    changes_since: what === "changes_since" ? at : null,
  };
}
