// The Runs tab's filters: state, job (name contains), and start time range.

import { InstantField } from "../../components/InstantField";
import { typedIso } from "../../history/instant";
import { shownFilterTime } from "../../history/time";
import { useDraft } from "../../hooks/useDraft";
import type { Navigate, Patch, Route } from "../../route";

export const RUN_STATES = ["RUNNING", "COMPLETE", "FAIL", "ABORT", "OTHER"] as const;
export type RunStateName = (typeof RUN_STATES)[number];

/** A link's `state` as a run state, in any case (`fail` is FAIL); undefined for one that is none. */
export function asRunState(value: string | null | undefined): RunStateName | undefined {
  const upper = value?.toUpperCase();
  return RUN_STATES.find((s) => s === upper);
}

/** Every filter, cleared. */
export const NO_RUN_FILTERS: Patch = { job: null, state: null, since: null, until: null };

interface Props {
  route: Route;
  /** The state filtered on (the link's, read by asRunState): undefined shows "Any state". */
  state: RunStateName | undefined;
  filtered: boolean;
  /** The time filters (`since`, `until`) whose value in the link is no time: marked invalid. */
  invalid: ReadonlySet<string>;
  navigate: Navigate;
  setFilter: (patch: Patch) => void;
}

export function RunFilters({ route, state, filtered, invalid, navigate, setFilter }: Props) {
  const [job, setJob] = useDraft(route.job ?? "", (v) => navigate({ job: v.trim() || null, offset: null }), 300);
  return (
    <div className="toolbar filters" role="search" aria-label="Run filters">
      <label className="field grow">
        <span>Job</span>
        <input type="search" value={job} placeholder="job name contains…" onChange={(e) => setJob(e.target.value)} aria-label="Run job filter" />
      </label>
      <label className="field">
        <span>State</span>
        <select value={state ?? ""} onChange={(e) => setFilter({ state: e.target.value || null })} aria-label="Run state filter">
          <option value="">Any state</option>
          {RUN_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Started from</span>
        <InstantField
          label="Runs from time"
          value={shownFilterTime(route.since)}
          invalid={invalid.has("since")}
          onChange={(typed) => setFilter({ since: typedIso(typed) })}
        />
      </label>
      <label className="field">
        <span>Started before</span>
        <InstantField
          label="Runs until time"
          value={shownFilterTime(route.until)}
          invalid={invalid.has("until")}
          onChange={(typed) => setFilter({ until: typedIso(typed) })}
        />
      </label>
      {filtered && (
        <button type="button" className="btn" onClick={() => setFilter(NO_RUN_FILTERS)}>
          Clear filters
        </button>
      )}
    </div>
  );
}
