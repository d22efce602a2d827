// The Events and Runs tabs' time filters (`since`, `until`) as the URL gives
// them: a value that names no real time (since=2026-02-30T10:00, a link's
// February 30th) is left out of the query, its field is marked invalid, and a
// note names it, as the Lineage tab's does a malformed time. The link keeps
// it, for its field to be corrected; the note stays until it is dismissed or
// the filters change.

import { useCallback, useState } from "react";
import { typedIso } from "../history/instant";
import { filterTimeProblems } from "../history/time";
import type { Route } from "../route";
import type { TimeLinkNote } from "./useTimeLink";

export interface FilterTimes {
  /** The bounds the API is asked for (ISO; null: none). */
  since: string | null;
  until: string | null;
  /** The filters (`since`, `until`) whose value the link gave is no time. */
  invalid: ReadonlySet<string>;
  note: TimeLinkNote | null;
}

export function useFilterTimes(route: Route): FilterTimes {
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
