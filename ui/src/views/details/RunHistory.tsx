// A job's runs, newest first: state, start, duration, rows written, and each
// run's inputs and outputs on demand. As of an instant: the runs that had
// started by then, each in its state then (one that ended later was RUNNING).

import { useRuns } from "../../api/queries";
import { Pager } from "../../components/Pager";
import { Empty, Failure, Loading } from "../../components/Status";
import { Instant, ZonedHeader } from "../../components/Time";
import { formatInstant, timeDigits } from "../../format";
import type { Navigate, Route } from "../../route";
import { runThen, untilOf } from "../../history/time";
import { RunRows } from "./RunRows";

const PAGE = 10;

export function RunHistory({
  namespace,
  name,
  asOf = null,
  route,
  navigate,
}: {
  namespace: string;
  name: string;
  /** The time control's instant: the runs started by then, in their state then; null: now. */
  asOf?: string | null;
  route: Route;
  navigate: Navigate;
}) {
  const offset = Number(route.runs_offset ?? 0) || 0;
  const fetched = useRuns(namespace, name, PAGE, offset, untilOf(asOf));
  if (fetched.error) return <Failure error={fetched.error} what="the runs" onRetry={fetched.refetch} />;
  const data = fetched.data;
  if (!data) return <Loading what="runs" />;
  if (data.page.total === 0 && asOf) {
    return <p className="muted small">No run of this job had started by {formatInstant(asOf)}.</p>;
  }
  if (data.page.total === 0) {
    return (
      <Empty title="No runs recorded">
        This job has events without a run, or its runs were pruned by retention (see
        /api/v1/lineage/openlineage/retention).
      </Empty>
    );
  }
  const open = route.run ?? null;
  // The Lineage tab shows now: "as of" a run still running (now) would change nothing.
  const showsNow = !route.as_of && !route.seen && !route.changes_since;
  const digits = timeDigits(data.page.runs.map((run) => run.started_at_iso));
  return (
    <div className="runs">
      {asOf && (
        <p className="muted small" data-testid="runs-as-of">
          As of <Instant iso={asOf} />: the runs that had started by then, each in its state then.
        </p>
      )}
      <table className="table runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th aria-label="Inputs and outputs" />
            <th>State</th>
            <th>
              <ZonedHeader label="Started" />
            </th>
            <th>Duration</th>
            <th className="num">Rows written</th>
          </tr>
        </thead>
        <tbody>
          {data.page.runs.map((run) => {
            const detail = data.details[run.run_id];
            const isOpen = open === run.run_id;
            return (
              <RunRows
                key={run.run_id}
                run={run}
                detail={detail ?? null}
                then={runThen(run, asOf)}
                asOf={asOf}
                showsNow={showsNow}
                digits={digits}
                open={isOpen}
                onToggle={() => navigate({ run: isOpen ? null : run.run_id })}
                navigate={navigate}
              />
            );
          })}
        </tbody>
      </table>
      {data.page.total > PAGE && (
        <Pager
          offset={offset}
          limit={PAGE}
          total={data.page.total}
          noun="runs"
          onOffset={(next) => navigate({ runs_offset: next || null, run: null })}
        />
      )}
    </div>
  );
}
