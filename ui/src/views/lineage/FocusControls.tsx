// The toolbar's controls of a focused graph: which node, how many steps, which way.

import { depthChoices, depthLabel } from "../../depth";
import type { LineageParams } from "../../hooks/useLineage";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";

export function FocusControls({ name, params, navigate }: { name: string; params: LineageParams; navigate: Navigate }) {
  return (
    <div className="focus-controls" data-testid="focus-controls">
      <span className="focus-label">
        Focused on <strong>{name}</strong>
      </span>
      <label className="field">
        <span>Depth</span>
        <select value={params.depth} onChange={(e) => navigate({ depth: e.target.value })} aria-label="Depth">
          {depthChoices(params.depth).map((d) => (
            <option key={d} value={d}>
              {depthLabel(d)}
            </option>
          ))}
        </select>
      </label>
      <label className="field">
        <span>Direction</span>
        <select
          value={params.direction}
          onChange={(e) => navigate({ dir: e.target.value === "both" ? null : e.target.value })}
          aria-label="Direction"
        >
          <option value="both">upstream and downstream</option>
          <option value="upstream">upstream</option>
          <option value="downstream">downstream</option>
        </select>
      </label>
      <button type="button" className="btn" onClick={() => navigate(refPatch(null, "focus"), { push: true })}>
        Show whole graph
      </button>
    </div>
  );
}
