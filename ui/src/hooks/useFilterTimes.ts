// The Events and Runs tabs' time filters (`since`, `until`) as the URL gives
// them. The URL keeps each as its UTC instant (since=2026-11-27T20:30:00Z),
// as the Lineage tab keeps its times, so a link means the same range in any
// time zone; a link's local time without a zone (since=2026-11-28T02:00, as
// the filters wrote them before Session 18) is read in the browser's zone,
// as it was then, and the URL is rewritten to its instant (the history entry
// is replaced). A value that names no real time (since=2026-02-30T10:00, a
// link's February 30th) is left out of the query, its field is marked
// invalid, and a note names it, as the Lineage tab's does a malformed time.
// The link keeps it, for its field to be corrected; the note stays until it
// is dismissed or the filters change.

import { useCallback, useState } from "react";
import { typedIso } from "../history/instant";
import { filterTimeLink, filterTimeProblems } from "../history/time";
import type { Navigate, Route } from "../route";
import { useCanonicalUrl } from "./useCanonicalUrl";
import type { TimeLinkNote } from "./useTimeLink";

export interface FilterTimes {
  /** The bounds the API is asked for (UTC instants, exactly; null: none). */
  since: string | null;
  until: string | null;
  /** The filters (`since`, `until`) whose value the link gave is no time. */
  invalid: ReadonlySet<string>;
  note: TimeLinkNote | null;
}

export function useFilterTimes(route: Route, navigate: Navigate): FilterTimes {
  useCanonicalUrl(route, navigate, { since: filterTimeLink(route.since), until: filterTimeLink(route.until) });
  const problems = filterTimeProblems(route);
  const found = problems.length ? JSON.stringify(problems) : null;
  const [dismissed, setDismissed] = useState<string | null>(null);
  const dismiss = useCallback(() => setDismissed(found), [found]);
  return {
    since: typedIso(route.since),
    until: typedIso(route.until),
    invalid: new Set(problems.map((p) => p.key)),
    note: found && dismissed !== found ? { problems, dismiss } : null,
  };
}
