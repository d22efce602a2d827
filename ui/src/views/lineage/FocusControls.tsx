// The toolbar's controls of a focused graph: which node, how many steps, which way.

import { DepthDirection } from "../../components/DepthDirection";
import type { LineageParams } from "../../hooks/useLineage";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";

export function FocusControls({ name, params, navigate }: { name: string; params: LineageParams; navigate: Navigate }) {
  return (
    <div className="focus-controls" data-testid="focus-controls">
      <span className="focus-label">
        Focused on <strong>{name}</strong>
      </span>
      <DepthDirection depth={params.depth} direction={params.direction} navigate={navigate} />
      <button type="button" className="btn" onClick={() => navigate(refPatch(null, "focus"), { push: true })}>
        Show whole graph
      </button>
    </div>
  );
}
