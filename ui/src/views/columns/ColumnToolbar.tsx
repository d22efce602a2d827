// The column view's toolbar: which column is traced, how far, which way,
// whether INDIRECT edges count, the way back to the dataset graph, and the
// jobs on the path (one click opens each).

import { nodeId } from "../../nodeId";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import { COLUMN_DEPTHS, tracePatch, type Trace } from "./trace";

interface Props {
  trace: Trace;
  label: string;
  jobs: { namespace: string; name: string }[];
  counts: { boxes: number; fields: number; edges: number } | null;
  navigate: Navigate;
}

export function ColumnToolbar({ trace, label, jobs, counts, navigate }: Props) {
  return (
    <div className="toolbar column-toolbar" role="toolbar" aria-label="Column lineage controls">
      <button
        type="button"
        className="btn"
        data-testid="columns-back"
        onClick={() => navigate({ ...tracePatch(null), depth: null, dir: null }, { push: true })}
      >
        ← Dataset graph
      </button>
      <h2 className="focus-label column-heading" data-testid="column-traced" tabIndex={-1}>
        Column <strong className="mono">{trace.field}</strong> of <strong>{label}</strong>
      </h2>
      <label className="field">
        <span>Depth</span>
        <select value={trace.depth} onChange={(e) => navigate({ depth: e.target.value })} aria-label="Column depth">
          {[...new Set([...COLUMN_DEPTHS, trace.depth])].sort((a, b) => a - b).map((d) => (
            <option key={d} value={d}>
              {d === 20 ? "all (20)" : d}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Direction</span>
        <select
          value={trace.direction}
          onChange={(e) => navigate({ dir: e.target.value === "both" ? null : e.target.value })}
          aria-label="Column direction"
        >
          <option value="both">upstream and downstream</option>
          <option value="upstream">upstream</option>
          <option value="downstream">downstream</option>
        </select>
      </label>
      <label className="check" title="INDIRECT edges: columns used by filters, joins, grouping, sorting">
        <input
          type="checkbox"
          checked={trace.indirect}
          onChange={(e) => navigate({ col_indirect: e.target.checked ? null : "0" })}
          aria-label="Include INDIRECT edges"
        />{" "}
        INDIRECT edges
      </label>
      {jobs.length > 0 && (
        <span className="column-jobs" data-testid="column-jobs">
          <span className="muted">Jobs:</span>
          {jobs.map((job) => (
            <button
              key={nodeId("job", job.namespace, job.name)}
              type="button"
              className="link"
              title={`${job.namespace} ${job.name}`}
              onClick={() => navigate(refPatch({ type: "job", ...job }), { push: true })}
            >
              {job.name}
            </button>
          ))}
        </span>
      )}
      <span className="toolbar-spacer" />
      {counts && (
        <span className="counts" data-testid="column-counts">
          {counts.boxes} datasets · {counts.fields} columns · {counts.edges} edges
        </span>
      )}
    </div>
  );
}
