// The Events tab: every stored event, newest first, paged through the whole
// store, filtered by namespace, job, event type, run and time range.

import { Fragment, useEffect, useState } from "react";
import { useEvents, useJobNames, useNamespaces } from "../api/queries";
import { StateBadge } from "../components/Badges";
import { JsonView } from "../components/JsonView";
import { Pager } from "../components/Pager";
import { Empty, Failure, Loading } from "../components/Status";
import { formatTime, producerLabel, shortId } from "../format";
import type { Navigate, Patch, Route } from "../route";
import type { EventItem, StoredEvent } from "../types";

const TYPES = ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"];
const SIZES = [25, 50, 100];

/** A datetime-local value ("2026-11-28T02:00") as an ISO time the API takes. */
function toIso(local: string | undefined): string | null {
  if (!local) return null;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

interface Props {
  route: Route;
  navigate: Navigate;
}

function useDebounced(value: string, commit: (v: string) => void, delay = 400) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (draft === value) return;
    const timer = setTimeout(() => commit(draft), delay);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [draft]);
  return [draft, setDraft] as const;
}

function eventJob(event: StoredEvent): { namespace: string; name: string } | null {
  return event.job?.name ? { namespace: event.job.namespace, name: event.job.name } : null;
}

function datasetNames(event: StoredEvent, key: "inputs" | "outputs"): string[] {
  return (event[key] ?? []).map((d) => d.name);
}

export function EventsView({ route, navigate }: Props) {
  const limit = SIZES.includes(Number(route.limit)) ? Number(route.limit) : 50;
  const offset = Math.max(0, Number(route.offset ?? 0) || 0);
  const query = {
    namespace: route.ns,
    job_name: route.job,
    event_type: route.type,
    run_id: route.run_id,
    since: toIso(route.since),
    until: toIso(route.until),
    limit,
    offset,
  };
  const events = useEvents(query);
  const namespaces = useNamespaces();
  const jobNames = useJobNames(route.ns ?? null);
  const [job, setJob] = useDebounced(route.job ?? "", (v) => navigate({ job: v || null, offset: null }));
  const filtered = Boolean(route.ns || route.job || route.type || route.run_id || route.since || route.until);
  const open = route.ev ? Number(route.ev) : null;

  const setFilter = (patch: Patch) => navigate({ ...patch, offset: null, ev: null }, { push: true });

  let body: React.ReactNode;
  if (events.error) body = <Failure error={events.error} what="events" onRetry={events.refetch} />;
  else if (!events.data) body = <Loading what="events" />;
  else if (events.data.total === 0) {
    body = filtered ? (
      <Empty title="No event matches these filters">
        <button
          type="button"
          className="link"
          onClick={() => setFilter({ ns: null, job: null, type: null, run_id: null, since: null, until: null })}
        >
          Clear all filters
        </button>{" "}
        or widen the time range.
      </Empty>
    ) : (
      <Empty title="No events stored yet">
        Send OpenLineage events to <code>POST /api/v1/lineage</code> on this server (Airflow, dbt, Spark or{" "}
        <code>feast-lineage apply</code> with <code>openlineage.enabled: true</code>); they appear here, newest first.
      </Empty>
    );
  } else {
    const page = events.data;
    body = (
      <>
        <table className="table events-table" data-testid="events-table" aria-busy={events.isFetching}>
          <thead>
            <tr>
              <th>Event time</th>
              <th>Type</th>
              <th>Job</th>
              <th>Run</th>
              <th>Inputs → outputs</th>
              <th>Producer</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item: EventItem) => {
              const jobRef = eventJob(item.event);
              const inputs = datasetNames(item.event, "inputs");
              const outputs = datasetNames(item.event, "outputs");
              const isOpen = open === item.id;
              return (
                <Fragment key={item.id}>
                  <tr
                    className={`event-row ${isOpen ? "is-open" : ""}`}
                    data-event-id={item.id}
                    onClick={() => navigate({ ev: isOpen ? null : item.id })}
                  >
                    <td className="nowrap">{formatTime(item.event_time)}</td>
                    <td>
                      {item.event_type ? (
                        <StateBadge state={item.event_type} />
                      ) : (
                        <span className="muted">{item.kind} event</span>
                      )}
                    </td>
                    <td>
                      {jobRef ? (
                        <>
                          <div className="strong">{jobRef.name}</div>
                          <div className="mono small muted">{jobRef.namespace}</div>
                        </>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td className="mono small" title={item.run_id ?? ""}>
                      {shortId(item.run_id)}
                    </td>
                    <td className="small">
                      <span title={inputs.join("\n")}>{inputs.length} in</span> →{" "}
                      <span title={outputs.join("\n")}>{outputs.length} out</span>
                    </td>
                    <td className="small">{producerLabel(item.event.producer)}</td>
                  </tr>
                  {isOpen && (
                    <tr className="event-json">
                      <td colSpan={6} onClick={(e) => e.stopPropagation()}>
                        <div className="event-json-head">
                          Received {formatTime(item.received_at)}
                          {item.run_id && (
                            <button
                              type="button"
                              className="link"
                              onClick={() => setFilter({ run_id: item.run_id })}
                            >
                              Only this run's events
                            </button>
                          )}
                          {jobRef && (
                            <button
                              type="button"
                              className="link"
                              onClick={() =>
                                navigate(
                                  {
                                    tab: "lineage",
                                    view: null,
                                    node_type: "job",
                                    node_ns: jobRef.namespace,
                                    node: jobRef.name,
                                    ev: null,
                                  },
                                  { push: true },
                                )
                              }
                            >
                              Open the job
                            </button>
                          )}
                        </div>
                        <JsonView value={item.event} openDepth={6} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
        <Pager
          offset={page.offset}
          limit={page.limit}
          total={page.total}
          noun="events"
          onOffset={(next) => navigate({ offset: next || null, ev: null }, { push: true })}
        />
      </>
    );
  }

  return (
    <div className="listview">
      <div className="toolbar filters" role="search" aria-label="Event filters">
        <label className="field">
          <span>Namespace</span>
          <select
            value={route.ns ?? ""}
            onChange={(e) => setFilter({ ns: e.target.value || null })}
            aria-label="Namespace filter"
          >
            <option value="">All namespaces</option>
            {(namespaces.data?.items ?? []).map((item) => (
              <option key={item.namespace} value={item.namespace}>
                {item.namespace}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>Job</span>
          <input
            type="search"
            value={job}
            placeholder="exact job name"
            list="event-job-names"
            onChange={(e) => setJob(e.target.value)}
            aria-label="Job filter"
          />
          <datalist id="event-job-names">
            {(jobNames.data ?? []).map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
        </label>
        <label className="field">
          <span>Type</span>
          <select value={route.type ?? ""} onChange={(e) => setFilter({ type: e.target.value || null })} aria-label="Event type filter">
            <option value="">Any type</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span>From</span>
          <input
            type="datetime-local"
            value={route.since ?? ""}
            onChange={(e) => setFilter({ since: e.target.value || null })}
            aria-label="From time"
          />
        </label>
        <label className="field">
          <span>Until</span>
          <input
            type="datetime-local"
            value={route.until ?? ""}
            onChange={(e) => setFilter({ until: e.target.value || null })}
            aria-label="Until time"
          />
        </label>
        <label className="field">
          <span>Per page</span>
          <select value={limit} onChange={(e) => setFilter({ limit: e.target.value === "50" ? null : e.target.value })} aria-label="Events per page">
            {SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        {route.run_id && (
          <span className="chip">
            run {shortId(route.run_id)}
            <button type="button" aria-label="Clear the run filter" onClick={() => setFilter({ run_id: null })}>
              ×
            </button>
          </span>
        )}
        {filtered && (
          <button
            type="button"
            className="btn"
            onClick={() => setFilter({ ns: null, job: null, type: null, run_id: null, since: null, until: null })}
          >
            Clear filters
          </button>
        )}
      </div>
      <div className="listview-body">{body}</div>
    </div>
  );
}
