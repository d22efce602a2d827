// What an edge of the column view says on hover: its transformations (type,
// subtype, description) and the job that reported it.

import { describe, type FieldEdge } from "./model";

export function EdgeTip({ edge, x, y }: { edge: FieldEdge; x: number; y: number }) {
  return (
    <div className="edge-tip" role="tooltip" data-testid="edge-tip" style={{ left: x, top: y }}>
      {edge.transformations.length === 0 ? (
        <div className="muted">No transformation reported</div>
      ) : (
        edge.transformations.map((t, i) => (
          <div key={i} className={t.type === "INDIRECT" ? "tip-indirect" : "tip-direct"}>
            {describe(t)}
          </div>
        ))
      )}
      {edge.job && (
        <div className="tip-job">
          Job <strong>{edge.job.name}</strong> <span className="muted">(click the edge to open it)</span>
        </div>
      )}
    </div>
  );
}
