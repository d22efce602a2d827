// A custom "seen during" window whose start is not before its end: nothing is
// asked of the server (it would refuse it); the user is told which bound is
// which and fixes either in the toolbar's inputs, or swaps them here.

import { formatInstant } from "../../format";
import { compareInstants } from "../../history/instant";
import type { TimeView } from "../../history/time";
import type { Navigate } from "../../route";

export function ReversedWindow({ time, navigate }: { time: TimeView; navigate: Navigate }) {
  // (Equal bounds are an empty window: swapping them changes nothing.)
  const swappable = time.since !== null && time.until !== null && compareInstants(time.since, time.until) > 0;
  return (
    <div className="status status-error" role="alert" data-testid="reversed-window">
      <div className="status-title">The “Seen during” window ends before it starts</div>
      <div className="status-body">
        “Seen since” ({formatInstant(time.since)}) must be before “Seen until” ({formatInstant(time.until)}). Change
        either in the toolbar above{swappable ? ", or swap them" : ""}.
      </div>
      <div className="status-actions">
        {swappable && (
        <button
          type="button"
          className="btn"
          onClick={() => navigate({ seen_since: time.until, seen_until: time.since }, { push: true })}
        >
          Swap them
        </button>
        )}
      </div>
    </div>
  );
}
