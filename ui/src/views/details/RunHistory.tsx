// A job's runs, newest first: state, start, duration, rows written, and each
// run's inputs and outputs on demand.

import { useRuns } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { Pager } from "../../components/Pager";
import { Empty, Failure, Loading } from "../../components/Status";
import { formatCount, formatDuration, formatTime } from "../../format";
import type { Navigate, Route } from "../../route";
import { runTimePatch } from "../../history/time";
import type { RunDataset, RunDetail, RunItem } from "../../types";
import { RunError, runFailure } from "./RunError";

const PAGE = 10;

/** Rows written by a run: its outputs' outputStatistics, else Feast's materialization facet. */
export function rowsWritten(run: RunDetail): number | null {
  let total: number | null = null;
  for (const output of run.outputs) {
    const count = output.facets?.outputStatistics?.rowCount;
    if (typeof count === "number") total = (total ?? 0) + count;
  }
  if (total !== null) return total;
  const written = run.facets.feast_materialization?.rows_written;
  return typeof written === "number" ? written : null;
}

export function RunHistory({
  namespace,
  name,
  route,
  navigate,
}: {
  namespace: string;
  name: string;
  route: Route;
  navigate: Navigate;
}) {
  const offset = Number(route.runs_offset ?? 0) || 0;
  const fetched = useRuns(namespace, name, PAGE, offset);
  if (fetched.error) return <Failure error={fetched.error} what="the runs" onRetry={fetched.refetch} />;
  const data = fetched.data;
  if (!data) return <Loading what="runs" />;
  if (data.page.total === 0) {
    return (
      <Empty title="No runs recorded">
        This job has events without a run, or its runs were pruned by retention (see
        /api/v1/lineage/openlineage/retention).
      </Empty>
    );
  }
  const open = route.run ?? null;
  return (
    <div className="runs">
      <table className="table runs-table" data-testid="runs-table">
        <thead>
          <tr>
            <th aria-label="Inputs and outputs" />
            <th>State</th>
            <th>Started</th>
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

function RunRows({
  run,
  detail,
  open,
  onToggle,
  navigate,
}: {
  run: RunItem;
  detail: RunDetail | null;
  open: boolean;
  onToggle: () => void;
  navigate: Navigate;
}) {
  const rows = detail ? rowsWritten(detail) : null;
  const failure = runFailure(detail ? detail.facets : run.facets_json);
  const goTo = (ds: RunDataset) =>
    navigate(
      { tab: "lineage", node_type: "dataset", node_ns: ds.namespace, node: ds.name, run: null, runs_offset: null },
      { push: true },
    );
  return (
    <>
      <tr className={open ? "run-row is-open" : "run-row"} data-run-id={run.run_id} onClick={onToggle}>
        <td>
          <button
            type="button"
            className="run-toggle"
            aria-expanded={open}
            aria-label="inputs & outputs"
            title="Inputs and outputs of this run"
            onClick={(e) => {
              e.stopPropagation();
              onToggle();
            }}
          >
            {open ? "▾" : "▸"}
          </button>
        </td>
        <td>
          <StateBadge state={run.state} />
        </td>
        <td>{formatTime(run.started_at_iso)}</td>
        <td className="nowrap">{formatDuration(run.duration_ms)}</td>
        <td className="num">{formatCount(rows)}</td>
      </tr>
      {failure && (
        <tr className="run-failure">
          <td />
          <td colSpan={4}>
            <RunError failure={failure} />
          </td>
        </tr>
      )}
      {open && (
        <tr className="run-io">
          <td colSpan={5}>
            {detail ? (
              <div className="run-io-body" data-testid="run-io">
                <div className="mono small muted">run {run.run_id}</div>
                <div className="run-io-cols">
                  <div>
                    <h4>Inputs ({detail.inputs.length})</h4>
                    <DatasetList items={detail.inputs} onPick={goTo} />
                  </div>
                  <div>
                    <h4>Outputs ({detail.outputs.length})</h4>
                    <DatasetList items={detail.outputs} onPick={goTo} />
                  </div>
                </div>
                <button
                  type="button"
                  className="link"
                  onClick={() =>
                    navigate(
                      { tab: "events", run_id: run.run_id, ns: null, job: null, type: null, offset: null },
                      { push: true },
                    )
                  }
                >
                  Events of this run
                </button>{" "}
                · <HistoryLinks run={run} navigate={navigate} />
              </div>
            ) : (
              <Loading what="the run" />
            )}
          </td>
        </tr>
      )}
    </>
  );
}

function DatasetList({ items, onPick }: { items: RunDataset[]; onPick: (ds: RunDataset) => void }) {
  if (items.length === 0) return <p className="muted small">none</p>;
  return (
    <ul className="plain">
      {items.map((ds) => (
        <li key={`${ds.namespace} ${ds.name}`}>
          <button type="button" className="link break" onClick={() => onPick(ds)} title={`${ds.namespace} ${ds.name}`}>
            {ds.name}
          </button>
          <div className="mono small muted break">{ds.namespace}</div>
        </li>
      ))}
    </ul>
  );
}

/** "As of this run" and "Changes since this run": the Lineage tab at the run's end. */
function HistoryLinks({ run, navigate }: { run: RunItem; navigate: Navigate }) {
  return (
    <>
      <button
        type="button"
        className="link"
        data-testid="as-of-run"
        onClick={() => navigate(runTimePatch(run, "as_of"), { push: true })}
      >
        Lineage as of this run
      </button>{" "}
      ·{" "}
      <button
        type="button"
        className="link"
        data-testid="changes-since-run"
        onClick={() => navigate(runTimePatch(run, "changes_since"), { push: true })}
      >
        Changes since this run
      </button>
    </>
  );
}
