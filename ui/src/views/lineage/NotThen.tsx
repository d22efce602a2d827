// A node the server does not have at the time shown: as of an instant, one
// first named after it (it did not exist yet then); in a "seen during"
// window, one no run of the window read or wrote. Said as such, with the
// instant, and a way back to now: not "it may have been removed", not Retry.
// A node the caller's API key may not see gets the same 404 (the server does
// not tell them apart), so the sentence names that too.

import type { ReactNode } from "react";
import { ApiError } from "../../api/http";
import { formatInstant, formatSpan } from "../../format";
import { isHistorical, type TimeView } from "../../history/time";
import type { Navigate } from "../../route";

/** Whether `error` says the node is not in the lineage of the time shown (a 404 of a historical view). */
export function isNotThen(error: unknown, time: TimeView): boolean {
  return error instanceof ApiError && error.status === 404 && isHistorical(time);
}

const NOW = { as_of: null, seen: null, seen_since: null, seen_until: null, changes_since: null };

interface Props {
  name: string;
  time: TimeView;
  navigate: Navigate;
  /** Other ways out (show the whole graph then). */
  children?: ReactNode;
}

export function NotThen({ name, time, navigate, children }: Props) {
  const title = time.window
    ? `${name} was not seen during ${formatSpan(time.since, time.until)}, or is not visible to you`
    : `${name} did not exist at ${formatInstant(time.asOf)}, or is not visible to you`;
  const hidden = "or it is in a namespace you may not see (the server answers both alike)";
  const body = time.window
    ? `No run of this window read or wrote it, ${hidden}.`
    : `No event had named it by then (the lineage as of an instant holds only what existed at that instant), ${hidden}.`;
  return (
    <div className="status status-empty" role="status" data-testid="not-then">
      <div className="status-title">{title}</div>
      <div className="status-body">{body}</div>
      <div className="status-actions">
        {children}
        <button type="button" className="btn" onClick={() => navigate(NOW, { push: true })}>
          Back to now
        </button>
      </div>
    </div>
  );
}
