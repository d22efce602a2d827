// When the Lineage tab answers for (issue 40), as the URL keeps it:
//   as_of          an ISO instant: the lineage as it stood then (default: now)
//   seen           a "seen during" window: 24h | 7d | custom, with
//   seen_since, seen_until   its ISO bounds (written when it is picked, so a
//                  link shows the same window later)
//   changes_since  an ISO instant: what changed from then to as_of (or now)
// as_of and a window exclude each other (the API takes one or the other).
// Each instant is kept exactly as given (history/instant.ts: to the
// microsecond, in the server's form), never rounded through a Date.

import type { History } from "../api/endpoints";
import { localDate } from "../format";
import type { Patch, Route } from "../route";
import {
  compareInstants,
  dateOf,
  exactInstant,
  filterTimeForm,
  INSTANT_FORM,
  isoOf,
  justAfter,
  localTimeOf,
  parseInstant,
  typedIso,
} from "./instant";

export type WindowPreset = "24h" | "7d" | "custom";

export interface TimeView {
  asOf: string | null;
  window: WindowPreset | null;
  since: string | null;
  until: string | null;
  /**
   * The times are reversed (the window's since is not before its until, or
   * changesReversed): nothing to ask for until the user fixes it.
   */
  reversed: boolean;
  changesSince: string | null;
  /** "Changes since" is after "as of": the diff would be read backwards (additions as removals). */
  changesReversed: boolean;
}

/**
 * An instant the URL gave, exactly (in the server's form), else null: a value
 * that is not one is named by timeLinkProblems and dropped from the URL.
 */
export function instant(value: string | undefined): string | null {
  return exactInstant(value);
}

const PRESETS: readonly string[] = ["24h", "7d", "custom"];

export function timeView(route: Route): TimeView {
  const window = PRESETS.includes(route.seen ?? "") ? (route.seen as WindowPreset) : null;
  const since = window ? instant(route.seen_since) : null;
  const until = window ? instant(route.seen_until) : null;
  const shown = since || until ? window : null;
  const asOf = window ? null : instant(route.as_of);
  const changesSince = window ? null : instant(route.changes_since);
  // (Equal, they are an empty diff: nothing changed, which is true.)
  const changesReversed = asOf !== null && changesSince !== null && compareInstants(changesSince, asOf) > 0;
  return {
    asOf,
    window: shown,
    since: shown ? since : null,
    until: shown ? until : null,
    reversed: changesReversed || (shown !== null && since !== null && until !== null && compareInstants(since, until) >= 0),
    changesSince,
    changesReversed,
  };
}

/** The time keys of the URL as the page uses them (null: left out): what useCanonicalUrl writes. */
export function timeRoute(view: TimeView): Record<string, string | null> {
  return {
    as_of: view.asOf,
    seen: view.window,
    seen_since: view.since,
    seen_until: view.until,
    changes_since: view.changesSince,
  };
}

/** A time parameter of the URL the page cannot use, and what it takes. */
export interface TimeLinkProblem {
  key: string;
  value: string;
  expected: string;
}

/** The time parameters of the URL that are malformed (not an instant, not a window). */
export function timeLinkProblems(route: Route): TimeLinkProblem[] {
  const problems: TimeLinkProblem[] = [];
  for (const key of ["as_of", "seen_since", "seen_until", "changes_since"]) {
    const value = route[key];
    if (value !== undefined && instant(value) === null) problems.push({ key, value, expected: INSTANT_FORM });
  }
  if (route.seen !== undefined && !PRESETS.includes(route.seen)) {
    problems.push({
      key: "seen",
      value: route.seen,
      expected: "24h, 7d or custom (with seen_since, and seen_until or none for now)",
    });
  }
  return problems;
}

/** The Events and Runs tabs' time filters of the URL (`since`, `until`) that name no real time (typedIso takes none). */
export function filterTimeProblems(route: Route): TimeLinkProblem[] {
  const problems: TimeLinkProblem[] = [];
  for (const key of ["since", "until"]) {
    const value = route[key];
    if (value && typedIso(value) === null) problems.push({ key, value, expected: filterTimeForm() });
  }
  return problems;
}

/**
 * A time filter's value as the URL keeps it: its UTC instant in the server's
 * form (an old link's local time, read in the browser's zone, rewritten to
 * it), or the value as given when it is no time (kept for its field to be
 * corrected); null for none.
 */
export function filterTimeLink(value: string | undefined): string | null {
  return typedIso(value) ?? value ?? null;
}

/** How a time filter's field shows the URL's value: its instant in local time, or a value that is no time as given. */
export function shownFilterTime(value: string | undefined): string | undefined {
  const iso = typedIso(value);
  return iso ? shownInstant(iso) : value;
}

/** Whether `iso` is later than this browser's clock. */
export function isFuture(iso: string | null): boolean {
  const at = iso ? parseInstant(iso) : null;
  return at !== null && at.ms > Date.now();
}

/**
 * Whether the view answers as now: no window, and no "As of" or one still to
 * come (the server answers a later instant as now), whose answer is the
 * current graph's, health included.
 */
export function answersNow(view: TimeView): boolean {
  return view.window === null && (view.asOf === null || isFuture(view.asOf));
}

/** What the graph endpoints are asked for; {} is now (an "As of" still to come too: see answersNow). */
export function historyQuery(view: TimeView): History {
  if (view.window) return { since: view.since, until: view.until };
  if (view.asOf && !answersNow(view)) return { as_of: view.asOf };
  return {};
}

/**
 * The `until` of a list (versions, runs) as of an instant: one microsecond
 * after it, so that what happened at the instant itself is listed (as_of
 * means at or before; `until` keeps what is before). Null: now, or the
 * last instant there is (everything is before it): no bound.
 */
export function untilOf(asOf: string | null): string | null {
  return asOf ? justAfter(asOf) : null;
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
  const earlier = isoOf({ ms: now - span, us: 0 });
  const from = preset === "custom" ? (since ?? earlier) : earlier;
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
  const date = iso ? dateOf(iso) : null;
  if (!date) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    localDate(date) +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
}

/** A datetime-local input's value (local time) as an ISO instant; null when empty or invalid. */
export function fromLocalInput(value: string): string | null {
  const date = value ? localTimeOf(value) : null;
  return date ? isoOf({ ms: date.getTime(), us: 0 }) : null;
}

/**
 * The instant "as of this run" means: its end, exactly as the API gives it
 * (to the microsecond: the run's own last event is at it); a run still
 * running: null (now).
 */
export function runInstant(run: { ended_at_iso?: string | null }): string | null {
  return run.ended_at_iso ? exactInstant(run.ended_at_iso) : null;
}

/** What "as of" a run still running is, in words (the API's rule for from_run and to_run: now). */
export const STILL_RUNNING = "Still running: the lineage as of this run is the lineage now";

/** To the Lineage tab as of a run's end ("as of this run"), or the changes since then. */
export function runTimePatch(run: { ended_at_iso?: string | null }, what: "as_of" | "changes_since"): Patch {
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

/** A run as it was at `asOf`: its state then, and whether it had ended by then. */
export interface RunThen {
  state: string;
  /** It ended after `asOf` (it was under way then): its end, rows and error are from later. */
  laterEnd: boolean;
  /**
   * It had events after `asOf` (it ended later, or is still under way, or
   * sent one after its end): the inputs and outputs it lists now may have
   * been named after then, so what it listed then is not known.
   */
  laterEvents: boolean;
}

/** A run's state at `asOf` (null: now): one that ended after it was RUNNING then (as the API's as_of says). */
export function runThen(
  run: { state: string; ended_at_iso?: string | null; updated_at_iso?: string | null },
  asOf: string | null,
): RunThen {
  const ended = run.ended_at_iso ?? null;
  const updated = run.updated_at_iso ?? ended;
  const laterEvents = asOf !== null && updated !== null && compareInstants(updated, asOf) > 0;
  // (A run that has not ended now had not then either: its state is as stored.)
  if (!asOf || ended === null || compareInstants(ended, asOf) <= 0) return { state: run.state, laterEnd: false, laterEvents };
  return { state: "RUNNING", laterEnd: true, laterEvents: true };
}

/** How a field shows the URL's instant: local time to the second, or exactly when finer. */
export function shownInstant(iso: string | null): string | undefined {
  if (!iso) return undefined;
  const at = parseInstant(iso);
  return at && at.ms % 1000 === 0 && at.us === 0 ? toLocalInput(iso) : iso;
}

/** The URL's instant for what a field took: a local time, or an instant with its offset. */
export function typedInstant(typed: string | null): string | null {
  if (!typed) return null;
  return /(?:z|[+-]\d\d(?::?\d\d)?)$/i.test(typed) ? exactInstant(typed) : fromLocalInput(typed);
}
