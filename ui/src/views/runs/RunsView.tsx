// The Runs tab: runs across every job, filtered by state, job (name
// contains) and start time, paged and sorted on the server. A failed run
// shows its error; a job name opens the job.

import type { ColumnDef } from "@tanstack/react-table";
import { useRunList } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { openableRow } from "../../components/openableRow";
import { attr, focusWhenShown } from "../../focus";
import { Pager } from "../../components/Pager";
import { SortableTable } from "../../components/SortableTable";
import { Empty, Failure, Loading } from "../../components/Status";
import { Time, ZonedHeader } from "../../components/Time";
import { formatDuration, shortId, timeDigits } from "../../format";
import { useCanonicalUrl } from "../../hooks/useCanonicalUrl";
import { pageOffset, type Navigate, type Patch, type Route } from "../../route";
import { refPatch } from "../../selection";
import { runInstant, runTimePatch, STILL_RUNNING } from "../../history/time";
import type { RunItem } from "../../types";
import { RunError, runFailure } from "../details/RunError";
import { asRunState, NO_RUN_FILTERS, RunFilters } from "./RunFilters";
import { useFilterTimes } from "../../hooks/useFilterTimes";
import { describeRange, TimeLinkNote } from "../lineage/TimeLinkNote";
import { AS_OF_FIELD } from "../lineage/TimeControl";

const LIMIT = 50;
const RUN_RANGE = { from: "started from", until: "started before", any: "of any start time" };

/** The digits each time column needs for its rows of one second to read apart (format.timeDigits). */
interface Digits {
  started: 0 | 3 | 6;
  ended: 0 | 3 | 6;
}

function columns(navigate: Navigate, digits: Digits): ColumnDef<RunItem, unknown>[] {
  // Column ids are the server's sort keys (GET /runs ?sort=).
  return [
    {
      id: "job",
      header: "Job",
      cell: ({ row: { original: run } }) => (
        <>
          <button
            type="button"
            className="link strong"
            onClick={() => navigate(openJobPatch(run), { push: true })}
          >
            {run.job_name}
          </button>
          <div className="mono small muted">{run.job_namespace}</div>
        </>
      ),
    },
    { id: "state", header: "State", cell: ({ row }) => <StateBadge state={row.original.state} /> },
    {
      id: "started",
      header: () => <ZonedHeader label="Started" />,
      cell: ({ row }) => (
        <span className="small nowrap">
          <Time iso={row.original.started_at_iso} digits={digits.started} />
        </span>
      ),
    },
    {
      id: "ended",
      header: () => <ZonedHeader label="Ended" />,
      cell: ({ row }) => (
        <span className="small nowrap">
          <Time iso={row.original.ended_at_iso} digits={digits.ended} />
        </span>
      ),
    },
    { id: "duration", header: "Duration", cell: ({ row }) => <span className="small nowrap">{formatDuration(row.original.duration_ms)}</span> },
    {
      id: "run",
      header: "Run",
      enableSorting: false,
      cell: ({ row }) => (
        <button
          type="button"
          className="link mono small"
          title={row.original.run_id}
          onClick={() => navigate({ tab: "events", ...clearRunsPatch, run_id: row.original.run_id }, { push: true })}
        >
          {shortId(row.original.run_id)}
        </button>
      ),
    },
    {
      id: "history",
      header: "Lineage",
      enableSorting: false,
      cell: ({ row }) => {
        // A run still running has no end: as of it is now (the API's rule for from_run), and says so.
        const running = runInstant(row.original) === null;
        return (
          <button
            type="button"
            className="link small nowrap"
            title={running ? STILL_RUNNING : "The lineage graph as it stood when this run ended"}
            onClick={() => {
              navigate({ ...clearRunsPatch, ...runTimePatch(row.original, "as_of") }, { push: true });
              focusWhenShown(AS_OF_FIELD); // the time it set, on the Lineage tab (this row is gone)
            }}
          >
            {running ? "now (still running)" : "as of this run"}
          </button>
        );
      },
    },
  ];
}

// What the Runs tab keeps in the URL, cleared when another tab opens.
const clearRunsPatch: Patch = { ...NO_RUN_FILTERS, sort: null, offset: null };

/** To the Jobs tab, with the run's job open. */
function openJobPatch(run: RunItem): Patch {
  return { tab: "jobs", ...clearRunsPatch, ...refPatch({ type: "job", namespace: run.job_namespace, name: run.job_name }) };
}

export function RunsView({ route, navigate }: { route: Route; navigate: Navigate }) {
  const offset = pageOffset(route);
  useCanonicalUrl(route, navigate, { offset: offset ? String(offset) : null });
  const state = asRunState(route.state);
  const times = useFilterTimes(route, navigate);
  const runs = useRunList({
    job_search: route.job || null,
    state,
    since: times.since,
    until: times.until,
    sort: route.sort ?? null,
    limit: LIMIT,
    offset,
  });
  // A state that is no run state is ignored (every state listed): no filter.
  const others = Boolean(route.job || state);
  const filtered = others || Boolean(route.since || route.until);
  const setFilter = (patch: Patch) => navigate({ ...patch, offset: null }, { push: true });

  let body: React.ReactNode;
  if (runs.error) body = <Failure error={runs.error} what="runs" onRetry={runs.refetch} />;
  else if (!runs.data) body = <Loading what="runs" />;
  else if (runs.data.total === 0) {
    body = filtered ? (
      <Empty title="No run matches these filters">
        <button type="button" className="link" onClick={() => setFilter(NO_RUN_FILTERS)}>
          Clear all filters
        </button>{" "}
        or widen the time range.
      </Empty>
    ) : (
      <Empty title="No runs yet">Runs appear when producers send OpenLineage run events.</Empty>
    );
  } else {
    const page = runs.data;
    body = (
      <>
        <SortableTable
          rows={page.runs}
          columns={columns(navigate, {
            started: timeDigits(page.runs.map((run) => run.started_at_iso)),
            ended: timeDigits(page.runs.map((run) => run.ended_at_iso)),
          })}
          sort={route.sort ?? null}
          onSort={(sort) => navigate({ sort, offset: null }, { push: true })}
          rowId={(run) => run.run_id}
          rowProps={(run) => ({
            className: "runs-row",
            // A run opens in its job's details, expanded.
            ...openableRow(() => {
              navigate({ ...openJobPatch(run), run: run.run_id }, { push: true });
              // The keyboard's place: the run, opened in its job's details.
              focusWhenShown(`[data-testid=details-panel] tr.run-row[data-run-id=${attr(run.run_id)}]`);
            }),
            "data-run-id": run.run_id,
            "data-state": run.state,
          })}
          below={(run) => {
            const failure = run.state === "FAIL" ? runFailure(run.facets_json) : null;
            return failure ? <RunError failure={failure} /> : null;
          }}
          className="runs-list"
          testid="run-list"
          busy={runs.isFetching}
        />
        <Pager offset={page.offset} limit={page.limit} total={page.total} noun="runs" onOffset={(next) => navigate({ offset: next || null }, { push: true })} />
      </>
    );
  }
  return (
    <div className="listview">
      <RunFilters route={route} state={state} filtered={filtered} invalid={times.invalid} navigate={navigate} setFilter={setFilter} />
      {times.note && (
        <TimeLinkNote
          note={times.note}
          shows={describeRange(others ? "the runs the other filters match" : "every run", times.since, times.until, RUN_RANGE)}
          kept
        />
      )}
      <div className="listview-body">{body}</div>
    </div>
  );
}
