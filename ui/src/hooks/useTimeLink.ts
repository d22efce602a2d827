// The Lineage tab's time parameters as the page uses them (history/time.ts):
// a malformed one (as_of=garbage) is named in a note, with the form it takes,
// and the URL is rewritten to what the page shows (the history entry is
// replaced); a well-formed one in another form (an offset, milliseconds) is
// rewritten to the server's exact form quietly. The note stays until it is
// dismissed or the time shown changes. The open job version's jobver_at
// (history/jobVersionAt.ts) is one of them: malformed, it is named and left
// out; the time control's instant, it is left out quietly.

import { useCallback, useEffect, useState } from "react";
import { jobVersionAtProblems, shownJobVersionAt } from "../history/jobVersionAt";
import { timeLinkProblems, timeRoute, timeView, type TimeLinkProblem } from "../history/time";
import type { Navigate, Route } from "../route";
import { useCanonicalUrl } from "./useCanonicalUrl";

export interface TimeLinkNote {
  problems: TimeLinkProblem[];
  /** Hides the note. */
  dismiss: () => void;
}

export function useTimeLink(route: Route, navigate: Navigate): TimeLinkNote | null {
  const shown = timeRoute(timeView(route));
  useCanonicalUrl(route, navigate, { ...shown, jobver_at: shownJobVersionAt(route) });
  const problems = [...timeLinkProblems(route), ...jobVersionAtProblems(route)];
  const found = problems.length ? JSON.stringify(problems) : null;
  // What the page shows once the URL is rewritten: the note is about that view.
  const shownKey = JSON.stringify(shown);
  const [note, setNote] = useState<{ problems: TimeLinkProblem[]; view: string } | null>(null);
  useEffect(() => {
    if (found) setNote({ problems: JSON.parse(found) as TimeLinkProblem[], view: shownKey });
    // Another time picked since: the note is about a view no longer shown.
    else setNote((current) => (current && current.view !== shownKey ? null : current));
  }, [found, shownKey]);
  const dismiss = useCallback(() => setNote(null), []);
  if (!note || note.view !== shownKey) return null;
  return { problems: note.problems, dismiss };
}
