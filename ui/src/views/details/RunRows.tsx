// One run of a job's run history: its row (state then, start, duration, rows
// written), its error, and, opened, its inputs and outputs with the links to
// its events and to the lineage as of its end. As of an instant, a run with
// events after it (under way then) lists no inputs and outputs: those it
// lists now may have been named after the instant.

import { StateBadge } from "../../components/Badges";
import { Loading } from "../../components/Status";
import { Instant, Time } from "../../components/Time";
import { formatCount, formatDuration, formatInstant } from "../../format";
import { runInstant, runTimePatch, STILL_RUNNING, type RunThen } from "../../history/time";
import { datasetId } from "../../nodeId";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import type { RunDataset, RunDetail, RunItem } from "../../types";
import { RunError, runFailure } from "./RunError";

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

export function RunRows({
  run,
  detail,
  then,
  asOf,
  showsNow,
  digits,
  open,
  onToggle,
  navigate,
}: {
  run: RunItem;
  detail: RunDetail | null;
  /** Its state at the time control's instant (now: as stored). */
  then: RunThen;
  /** The time control's instant (null: now). */
  asOf: string | null;
  /** The time control shows now (no "As of", window or "Changes since"). */
  showsNow: boolean;
  /** The fraction of a second the start times show (runs within one second read apart). */
  digits: 0 | 3 | 6;
  open: boolean;
  onToggle: () => void;
  navigate: Navigate;
}) {
  // A run under way at the instant had written nothing yet, and had not failed;
  // what its outputs say may be from its later events.
  const rows = detail && !then.laterEvents ? rowsWritten(detail) : null;
  const failure = then.laterEnd ? null : runFailure(detail ? detail.facets : run.facets_json);
  const later = then.laterEnd ? `Under way then; it ended ${run.state} at ${formatInstant(run.ended_at_iso)}` : undefined;
  const goTo = (ds: RunDataset) =>
    navigate(
      { tab: "lineage", ...refPatch({ type: "dataset", namespace: ds.namespace, name: ds.name }) },
      { push: true },
    );
  return (
    <>
      <tr
        className={open ? "run-row is-open" : "run-row"}
        data-run-id={run.run_id}
        data-state={then.state}
        onClick={onToggle}
      >
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
        <td title={later}>
          <StateBadge state={then.state} />
          {then.laterEnd && <span className="muted small"> then</span>}
        </td>
        <td className="nowrap">
          <Time iso={run.started_at_iso} digits={digits} />
        </td>
        <td className="nowrap" title={later}>
          {then.laterEnd ? "—" : formatDuration(run.duration_ms)}
        </td>
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
                {then.laterEvents && asOf ? (
                  <p className="muted small" data-testid="run-io-later">
                    {then.laterEnd ? "Under way at" : "Ended by"} <Instant iso={asOf} />
                    {then.laterEnd ? "" : ", with events after it"} (its last event came at{" "}
                    <Instant iso={run.updated_at_iso} />): the inputs and outputs it had named by then are not known
                    here, so none are listed. Its events show what each one named, and when.
                  </p>
                ) : (
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
                )}
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
                · <HistoryLinks run={run} showsNow={showsNow} navigate={navigate} />
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
        <li key={datasetId(ds.namespace, ds.name)}>
          <button type="button" className="link break" onClick={() => onPick(ds)} title={`${ds.namespace} ${ds.name}`}>
            {ds.name}
          </button>
          <div className="mono small muted break">{ds.namespace}</div>
        </li>
      ))}
    </ul>
  );
}

/**
 * "As of this run" and "Changes since this run": the Lineage tab at the run's end. A run
 * still running has no end: as the API's from_run and to_run take it, it stands for now.
 * As of it is the lineage now (the link is off when that is what is shown), and nothing has
 * changed since now: that link is off, and the run's row says why.
 */
function HistoryLinks({ run, showsNow, navigate }: { run: RunItem; showsNow: boolean; navigate: Navigate }) {
  const running = runInstant(run) === null;
  const why = running ? STILL_RUNNING : undefined;
  return (
    <>
      <button
        type="button"
        className="link"
        data-testid="as-of-run"
        disabled={running && showsNow}
        title={why}
        onClick={() => navigate(runTimePatch(run, "as_of"), { push: true })}
      >
        Lineage as of this run
      </button>{" "}
      ·{" "}
      <button
        type="button"
        className="link"
        data-testid="changes-since-run"
        disabled={running}
        title={why}
        onClick={() => navigate(runTimePatch(run, "changes_since"), { push: true })}
      >
        Changes since this run
      </button>
      {running && (
        <p className="muted small" data-testid="run-still-running">
          {STILL_RUNNING}
          {showsNow ? " (shown)" : ""}, and nothing has changed since it yet.
        </p>
      )}
    </>
  );
}
