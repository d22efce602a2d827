// The banners of a view that is not the current graph (issue 40): as of an
// instant, a "seen during" window, the changes since an instant; each with
// one click back to now.

import { beforeHorizon } from "../../api/http";
import { CHANGE_ICONS, JOB_CHANGE_ICON } from "../../graph/model";
import type { Lineage } from "../../hooks/useLineage";
import { formatInstant } from "../../format";
import type { Navigate } from "../../route";
import { focusWhenShown } from "../../focus";
import { AS_OF_FIELD } from "./TimeControl";
import { isFuture } from "../../history/time";

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

const NOW = { as_of: null, seen: null, seen_since: null, seen_until: null, changes_since: null };

/** Now, the focus on the "As of" field (this banner, and its button, are gone). */
function backToNow(navigate: Navigate): void {
  navigate(NOW, { push: true });
  focusWhenShown(AS_OF_FIELD);
}

export function HistoryBanner({ lineage, navigate }: { lineage: Lineage; navigate: Navigate }) {
  const { time, changes, diff } = lineage;
  if (lineage.registryView || (!time.asOf && !time.window && !time.changesSince)) return null;
  const back = (
    <button type="button" className="btn" onClick={() => backToNow(navigate)} data-testid="back-to-now">
      Back to now
    </button>
  );
  const to = time.asOf ? `as of ${formatInstant(time.asOf)}` : "now";
  return (
    <div className="banner banner-history" role="status" data-testid="history-banner">
      {time.window ? (
        <span>
          <strong>Seen during</strong> {formatInstant(time.since)} – {time.until ? formatInstant(time.until) : "now"}: the
          edges the runs of this window observed, each with its run count.
        </span>
      ) : time.changesSince ? (
        <span data-testid="changes-summary">
          <strong>Changes since {formatInstant(time.changesSince)}</strong> (to {to}):{" "}
          {changes ? (
            <>
              <span className="change-green">
                {CHANGE_ICONS.added} {count(changes.counts.added, "node")}, {count(changes.counts.edgesAdded, "edge")} added
              </span>
              ,{" "}
              <span className="change-red">
                {CHANGE_ICONS.removed} {count(changes.counts.removed, "node")}, {count(changes.counts.edgesRemoved, "edge")}{" "}
                removed
              </span>
              ,{" "}
              <span className="change-amber">
                {CHANGE_ICONS.changed} {count(changes.counts.changed, "schema")} changed
              </span>
              ,{" "}
              <span className="change-amber" data-testid="changes-jobs">
                {JOB_CHANGE_ICON} {count(changes.counts.jobsChanged, "job")} redefined
              </span>
              ,{" "}
              <span data-testid="changes-columns">
                <span className="change-green">
                  {CHANGE_ICONS.added} {changes.counts.columnEdgesAdded}
                </span>{" "}
                /{" "}
                <span className="change-red">
                  {CHANGE_ICONS.removed} {changes.counts.columnEdgesRemoved}
                </span>{" "}
                column edges
              </span>
            </>
          ) : time.changesReversed ? (
            "not compared: it is after “As of”"
          ) : diff.error ? (
            beforeHorizon(diff.error) ? (
              `history before ${formatInstant(beforeHorizon(diff.error)?.horizon)} is not kept by this server’s retention`
            ) : (
              `the changes could not be read: ${diff.error.message}`
            )
          ) : (
            "comparing…"
          )}
        </span>
      ) : (
        <span>
          <strong>Historical view:</strong> the lineage as it stood at {formatInstant(time.asOf)}
          {isFuture(time.asOf) ? ", a time still to come: the lineage now (the server answers a later instant as now)" : ""}.
        </span>
      )}
      {back}
    </div>
  );
}
