// Reversed times: a custom "seen during" window whose start is not before its
// end, or "changes since" after "as of". Nothing is asked of the server (it
// would refuse the window, and read the diff backwards: what was added since,
// drawn as removed); the user is told which time is which and fixes either in
// the toolbar's inputs, or swaps them here.

import { formatInstant } from "../../format";
import { compareInstants } from "../../history/instant";
import type { TimeView } from "../../history/time";
import type { Navigate, Patch } from "../../route";

/** The alert for two times in the wrong order; `swap`: the route change that swaps them (null: none helps). */
function Reversed(props: { testId: string; title: string; body: string; swap: Patch | null; navigate: Navigate }) {
  const { testId, title, body, swap, navigate } = props;
  return (
    <div className="status status-error" role="alert" data-testid={testId}>
      <div className="status-title">{title}</div>
      <div className="status-body">
        {body} Change either in the toolbar above{swap ? ", or swap them" : ""}.
      </div>
      <div className="status-actions">
        {swap && (
          <button type="button" className="btn" onClick={() => navigate(swap, { push: true })}>
            Swap them
          </button>
        )}
      </div>
    </div>
  );
}

export function ReversedWindow({ time, navigate }: { time: TimeView; navigate: Navigate }) {
  if (time.changesReversed) {
    return (
      <Reversed
        testId="reversed-changes"
        title="“Changes since” is after “As of”"
        body={`“Changes since” (${formatInstant(time.changesSince)}) must be before “As of” (${formatInstant(time.asOf)}).`}
        swap={{ as_of: time.changesSince, changes_since: time.asOf }}
        navigate={navigate}
      />
    );
  }
  // (Equal bounds are an empty window: swapping them changes nothing.)
  const swappable = time.since !== null && time.until !== null && compareInstants(time.since, time.until) > 0;
  return (
    <Reversed
      testId="reversed-window"
      title="The “Seen during” window ends before it starts"
      body={`“Seen since” (${formatInstant(time.since)}) must be before “Seen until” (${formatInstant(time.until)}).`}
      swap={swappable ? { seen_since: time.until, seen_until: time.since } : null}
      navigate={navigate}
    />
  );
}
