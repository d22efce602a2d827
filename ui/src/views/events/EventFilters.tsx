// The Events tab's filters: namespace, job, event type, time range, page
// size, and the run when one is chosen.

import { InstantField } from "../../components/InstantField";
import { typedIso } from "../../history/instant";
import { shownFilterTime } from "../../history/time";
import type { EventType } from "../../api/endpoints";
import { useJobNames, useNamespaces } from "../../api/queries";
import { shortId } from "../../format";
import { useDraft } from "../../hooks/useDraft";
import type { Navigate, Patch, Route } from "../../route";

const TYPES = ["START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER"];
export const SIZES = [25, 50, 100];
/** Every filter, cleared. */
export const NO_FILTERS: Patch = { ns: null, job: null, type: null, run_id: null, since: null, until: null };

interface Props {
  route: Route;
  /** The type filtered on (the link's, read by asEventType): undefined shows "Any type". */
  type: EventType | undefined;
  limit: number;
  filtered: boolean;
  /** The time filters (`since`, `until`) whose value in the link is no time: marked invalid. */
  invalid: ReadonlySet<string>;
  navigate: Navigate;
  setFilter: (patch: Patch) => void;
}

export function EventFilters({ route, type, limit, filtered, invalid, navigate, setFilter }: Props) {
  const namespaces = useNamespaces();
  const jobNames = useJobNames(route.ns ?? null);
  const [job, setJob] = useDraft(route.job ?? "", (v) => navigate({ job: v || null, offset: null }), 400);
  return (
    <div className="toolbar filters" role="search" aria-label="Event filters">
      <label className="field">
        <span>Namespace</span>
        <select value={route.ns ?? ""} onChange={(e) => setFilter({ ns: e.target.value || null })} aria-label="Namespace filter">
          <option value="">All namespaces</option>
          {(namespaces.data?.counts ?? []).map((item) => (
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
          placeholder="job name contains…"
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
        <select value={type ?? ""} onChange={(e) => setFilter({ type: e.target.value || null })} aria-label="Event type filter">
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
        <InstantField
          label="From time"
          value={shownFilterTime(route.since)}
          invalid={invalid.has("since")}
          onChange={(typed) => setFilter({ since: typedIso(typed) })}
        />
      </label>
      <label className="field">
        <span>Until</span>
        <InstantField
          label="Until time"
          value={shownFilterTime(route.until)}
          invalid={invalid.has("until")}
          onChange={(typed) => setFilter({ until: typedIso(typed) })}
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
        <button type="button" className="btn" onClick={() => setFilter(NO_FILTERS)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
