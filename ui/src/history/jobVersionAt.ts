// The instant the job version open in the details panel (the URL's jobver) is
// read as of: the URL's jobver_at, else the time control's (as_of; now when
// none). The server answers a version only a run under way at an instant ran
// only as of that instant, so a version is kept read as of the instant it was
// opened at when the time control's changes (As of, Back to now, "as of this
// run", a Seen during window): the route change carries that instant into
// jobver_at, in the same history entry, so the URL still says what is shown.

import type { Route } from "../route";
import { instant, timeView } from "./time";

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

/**
 * The route `after` a change from `before`: when the change moves the time
 * control's instant and leaves a job version open that was read as of it,
 * that version is read as of the instant it was (the instant carried into
 * jobver_at). One opened, closed or given its instant by the change is left as it says.
 */
export function keepJobVersionAt(before: Route, after: Route): Route {
  const open = before.jobver;
  if (!open || after.jobver !== open || before.jobver_at !== undefined || after.jobver_at !== undefined) return after;
  const was = timeView(before).asOf;
  if (was === timeView(after).asOf) return after;
  return { ...after, jobver_at: was ?? JOBVER_NOW };
}
