// The banners of a view that is not the current graph (issue 40): as of an
// instant, a "seen during" window, the changes since an instant (counted as
// the graph draws them); each with one click back to now.

import { beforeHorizon } from "../../api/http";
import { CHANGE_ICONS, JOB_CHANGE_ICON } from "../../graph/model";
import type { Lineage } from "../../hooks/useLineage";
import { Instant, Time } from "../../components/Time";
import { formatInstant } from "../../format";
import { fractionDigits } from "../../history/instant";
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

/**
 * Jobs of one kind of change that the graph does not draw (the Jobs filter
 * leaves them out): the counts beside it are those drawn, these said apart.
 */
function NotShown({ n, what }: { n: number; what: "added" | "removed" | "redefined" }) {
  if (!n) return null;
  const jobs = what === "redefined" ? `${n} more` : count(n, "job");
  return <span data-testid={`changes-not-shown-${what}`}> (and {jobs} not shown by the Jobs filter)</span>;
}

export function HistoryBanner({ lineage, navigate }: { lineage: Lineage; navigate: Navigate }) {
  const { time, changeCounts: counts, diff } = lineage;
  if (lineage.registryView || (!time.asOf && !time.window && !time.changesSince)) return null;
  const back = (
    <button type="button" className="btn" onClick={() => backToNow(navigate)} data-testid="back-to-now">
      Back to now
    </button>
  );
  const to = time.asOf ? (
    <>
      as of <Instant iso={time.asOf} />
    </>
  ) : (
    "now"
  );
  return (
    <div className="banner banner-history" role="status" data-testid="history-banner">
      {time.window ? (
        <span>
          <strong>Seen during</strong>{" "}
          {time.until ? (
            <>
              <Time iso={time.since} digits={fractionDigits(time.since ?? "")} /> – <Instant iso={time.until} />
            </>
          ) : (
            <>
              <Instant iso={time.since} /> – now
            </>
          )}
          : the
          edges the runs of this window observed, each with its run count.
        </span>
      ) : time.changesSince ? (
        <span data-testid="changes-summary">
          <strong>
            Changes since <Instant iso={time.changesSince} />
          </strong> (to {to}):{" "}
          {counts ? (
            <>
              <span className="change-green">
                {CHANGE_ICONS.added} {count(counts.added, "node")}, {count(counts.edgesAdded, "edge")} added
              </span>
              <NotShown n={counts.notShown.added} what="added" />,{" "}
              <span className="change-red">
                {CHANGE_ICONS.removed} {count(counts.removed, "node")}, {count(counts.edgesRemoved, "edge")} removed
              </span>
              <NotShown n={counts.notShown.removed} what="removed" />,{" "}
              <span className="change-amber">
                {CHANGE_ICONS.changed} {count(counts.schemas, "schema")} changed
              </span>
              ,{" "}
              <span className="change-amber" data-testid="changes-jobs">
                {JOB_CHANGE_ICON} {count(counts.jobs, "job")} redefined
              </span>
              <NotShown n={counts.notShown.jobs} what="redefined" />,{" "}
              <span data-testid="changes-columns">
                <span className="change-green">
                  {CHANGE_ICONS.added} {counts.columnEdgesAdded}
                </span>{" "}
                /{" "}
                <span className="change-red">
                  {CHANGE_ICONS.removed} {counts.columnEdgesRemoved}
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
          <strong>Historical view:</strong> the lineage as it stood at <Instant iso={time.asOf} />
          {isFuture(time.asOf) ? ", a time still to come: the lineage now (the server answers a later instant as now)" : ""}.
        </span>
      )}
      {back}
    </div>
  );
}
