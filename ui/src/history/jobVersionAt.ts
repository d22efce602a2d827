// The instant the job version open in the details panel (the URL's jobver) is
// read as of: the URL's jobver_at, else the time control's (as_of; now when
// none). The server answers a version only a run under way at an instant ran
// only as of that instant, so a version is kept read as of the instant it was
// opened at when the time control's changes (As of, Back to now, "as of this
// run", a Seen during window): the route change carries that instant into
// jobver_at, in the same history entry, so the URL still says what is shown.
// When the time control comes back to that instant, jobver_at goes (the time
// control's says it). A jobver_at that is neither an instant nor "now" is
// named in the link's note with the malformed times, and left out.

import { applyPatch, type Route } from "../route";
import { INSTANT_FORM } from "./instant";
import { instant, timeView, type TimeLinkProblem } from "./time";

/** jobver_at for "now": a version opened with no instant set, kept when one is. */
export const JOBVER_NOW = "now";

export interface JobVersionAt {
  /** The instant (null: now). */
  at: string | null;
  /** It is not the time control's instant (the panel says which it is). */
  own: boolean;
}

/** The instant the open job version is read as of. A jobver_at that is no instant is left out. */
export function jobVersionAt(route: Route): JobVersionAt {
  const asOf = timeView(route).asOf;
  if (route.jobver_at === JOBVER_NOW) return { at: null, own: asOf !== null };
  const at = instant(route.jobver_at);
  return at === null ? { at: asOf, own: false } : { at, own: at !== asOf };
}

/** The URL's jobver_at when it is malformed (neither an instant nor "now"), for the link's note. */
export function jobVersionAtProblems(route: Route): TimeLinkProblem[] {
  const value = route.jobver_at;
  if (value === undefined || value === JOBVER_NOW || instant(value) !== null) return [];
  return [{ key: "jobver_at", value, expected: `${INSTANT_FORM}, or now` }];
}

/**
 * The jobver_at the URL says (null: none): the instant in the server's form,
 * or "now"; none when it is the time control's instant, or malformed.
 */
export function shownJobVersionAt(route: Route): string | null {
  if (route.jobver_at === undefined) return null;
  const { at, own } = jobVersionAt(route);
  return own ? (at ?? JOBVER_NOW) : null;
}

/**
 * The route `after` a change from `before`: when the change moves the time
 * control's instant and leaves a job version open that was read as of it,
 * that version is read as of the instant it was (the instant carried into
 * jobver_at). One opened, closed or given its instant by the change is left as it says.
 * A jobver_at that names the time control's instant after the change (it came
 * back to it) goes: the version is read as of the time control's again.
 */
export function keepJobVersionAt(before: Route, after: Route): Route {
  const open = before.jobver;
  if (open && after.jobver === open && before.jobver_at === undefined && after.jobver_at === undefined) {
    const was = timeView(before).asOf;
    return was === timeView(after).asOf ? after : { ...after, jobver_at: was ?? JOBVER_NOW };
  }
  const named = after.jobver_at !== undefined && jobVersionAtProblems(after).length === 0;
  return named && shownJobVersionAt(after) === null ? applyPatch(after, { jobver_at: null }) : after;
}
