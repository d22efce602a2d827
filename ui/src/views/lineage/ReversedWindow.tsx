// Reversed times: a custom "seen during" window whose start is not before its
// end, or "changes since" after "as of". Nothing is asked of the server (it
// would refuse the window, and read the diff backwards: what was added since,
// drawn as removed); the user is told which time is which and fixes either in
// the toolbar's inputs, or swaps them here.

import { formatInstant } from "../../format";
import { compareInstants } from "../../history/instant";
import type { TimeView } from "../../history/time";
import type { Navigate } from "../../route";

export function ReversedWindow({ time, navigate }: { time: TimeView; navigate: Navigate }) {
  if (time.changesReversed) {
    return (
      <div className="status status-error" role="alert" data-testid="reversed-changes">
        <div className="status-title">“Changes since” is after “As of”</div>
        <div className="status-body">
          “Changes since” ({formatInstant(time.changesSince)}) must be before “As of” ({formatInstant(time.asOf)}).
          Change either in the toolbar above, or swap them.
        </div>
        <div className="status-actions">
          <button
            type="button"
            className="btn"
            onClick={() => navigate({ as_of: time.changesSince, changes_since: time.asOf }, { push: true })}
          >
            Swap them
          </button>
        </div>
      </div>
    );
  }
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
