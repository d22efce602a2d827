// The head of an OpenLineage node's panel: kind, name, namespace, producer,
// last update, and where else to look at it.

import { KindBadge } from "../../components/Badges";
import { Time } from "../../components/Time";
import { producerLabel } from "../../format";
import { feastObjectName, olKind } from "../../graph/model";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import type { GraphNode } from "../../types";

export function OpenLineageHead({ node, navigate }: { node: GraphNode; navigate: Navigate }) {
  const ref = { type: node.kind, namespace: node.namespace, name: node.name };
  const feast = node.feast;
  // Its Feast object, in the registry view.
  const feastRef =
    feast?.project && feast.type && node.kind === "dataset" && feast.type !== "online_store"
      ? { type: feast.type, namespace: feast.project, name: feastObjectName(node) ?? feast.name }
      : null;
  return (
    <header className="panel-head">
      <KindBadge kind={olKind(node)} />
      <h2 className="panel-title" title={node.name}>
        {feastObjectName(node) ?? node.name}
      </h2>
      <div className="panel-sub mono">
        {node.namespace} · {node.name}
      </div>
      <div className="panel-meta">
        {node.producer && <span title={node.producer}>Producer: {producerLabel(node.producer)}</span>}
        {node.updated_at_iso && (
          <span>
            Updated <Time iso={node.updated_at_iso} zoned />
          </span>
        )}
      </div>
      <div className="panel-actions">
        <button
          type="button"
          className="btn"
          onClick={() =>
            navigate({ tab: "lineage", view: null, ...refPatch(ref), ...refPatch(ref, "focus") }, { push: true })
          }
        >
          Show lineage
        </button>
        {feastRef && (
          <button
            type="button"
            className="btn"
            onClick={() => navigate({ tab: "lineage", view: "feast", ...refPatch(feastRef) }, { push: true })}
          >
            In Feast registry view
          </button>
        )}
        {node.kind === "job" && (
          <button
            type="button"
            className="btn"
            onClick={() =>
              navigate(
                { tab: "events", ns: node.namespace, job: node.name, offset: null, type: null, run_id: null },
                { push: true },
              )
            }
          >
            Events
          </button>
        )}
      </div>
    </header>
  );
}
