// A time asked before the server's retention horizon (the cutoff of its last
// prune): the server no longer holds what happened then, and answers 400
// naming the oldest instant it still answers (a `before_retention_horizon`
// detail). Said as such, not as a failure to retry: one click views the
// same thing from that oldest instant, one goes back to now.

import { beforeHorizon } from "../../api/http";
import { formatInstant } from "../../format";
import type { TimeView } from "../../history/time";
import type { Navigate, Patch } from "../../route";

const NOW = { as_of: null, seen: null, seen_since: null, seen_until: null, changes_since: null };

/** Which of the view's times was refused: the instant shown, a window's start, or "changes since". */
type Asked = "as_of" | "since" | "changes_since";

/** The time of the view a refused API parameter stands for (the diff's `from` is "changes since"). */
function askedOf(parameter: string, time: TimeView): Asked {
  if (parameter === "from" || parameter === "from_run") return "changes_since";
  if (parameter === "since" || time.window) return "since";
  return "as_of";
}

/** The horizon `error` names, and which time of the view it refused; null for any other error. */
export function horizonOf(error: unknown, time: TimeView): { horizon: string; asked: Asked } | null {
  const found = beforeHorizon(error);
  return found ? { horizon: found.horizon, asked: askedOf(found.parameter, time) } : null;
}

interface Props {
  horizon: string;
  asked: Asked;
  time: TimeView;
  navigate: Navigate;
}

export function BeforeHorizon({ horizon, asked, time, navigate }: Props) {
  const oldest = formatInstant(horizon);
  let what: string;
  let label: string;
  let patch: Patch;
  if (asked === "changes_since") {
    what = `What changed since ${formatInstant(time.changesSince)} cannot be compared`;
    label = `Changes since ${oldest}`;
    patch = { changes_since: horizon };
  } else if (asked === "since") {
    what = `The runs seen from ${formatInstant(time.since)} cannot all be counted`;
    label = `Seen from ${oldest}`;
    patch = { seen: "custom", seen_since: horizon, seen_until: time.until };
  } else {
    what = `The lineage as of ${formatInstant(time.asOf)} cannot be answered`;
    label = `View as of ${oldest}`;
    patch = { as_of: horizon };
  }
  return (
    <div className="status status-empty" role="status" data-testid="before-horizon">
      <div className="status-title">History before {oldest} is not kept by this server’s retention</div>
      <div className="status-body">
        {what}: the server prunes what is older than its retention, and {oldest} is the oldest instant it still
        answers.
      </div>
      <div className="status-actions">
        <button
          type="button"
          className="btn"
          data-testid="from-horizon"
          onClick={() => navigate(patch, { push: true })}
        >
          {label}
        </button>
        <button type="button" className="btn" onClick={() => navigate(NOW, { push: true })}>
          Back to now
        </button>
      </div>
    </div>
  );
}
