// The details panel: everything known about one node. OpenLineage nodes show
// their facets and, for jobs, the run history (OpenLineageDetails); registry
// nodes show their Feast definition (RegistryDetails).

import type { LNode } from "../../graph/model";
import type { JobDiff, SchemaChangeOf } from "../../history/changes";
import type { Navigate, Route } from "../../route";
import type { Selection } from "../../selection";
import { OpenLineageDetails } from "./OpenLineageDetails";
import { RegistryDetails } from "./RegistryDetails";

export interface PanelProps {
  selection: Selection;
  /** The node as drawn, when the graph holds it (with its aliases). */
  drawn: LNode | null;
  route: Route;
  navigate: Navigate;
  onClose: () => void;
  consumerEnabled: boolean;
  /** "Changes since…": the selected dataset's field diff and versions, when its schema changed. */
  schemaChange?: SchemaChangeOf | null;
  /** "Changes since…": what changed in the selected job's definition, and its versions. */
  jobChange?: JobDiff | null;
}

export function DetailsPanel(props: PanelProps) {
  return (
    <aside className="panel" aria-label="Details" data-testid="details-panel">
      <button type="button" className="panel-close" onClick={props.onClose} aria-label="Close details">
        ×
      </button>
      {props.selection.source === "registry" ? <RegistryDetails {...props} /> : <OpenLineageDetails {...props} />}
    </aside>
  );
}
