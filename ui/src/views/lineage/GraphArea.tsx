// The canvas area of the Lineage tab: the graph, or what is in its way (no
// repository, an error, loading, a focused node not found, nothing yet).

import { useOwnProject } from "../../api/queries";
import { ApiError } from "../../api/http";
import { openKeyForm, useKeyInUse } from "../../components/KeyForm";
import { Empty, Failure, Loading } from "../../components/Status";
import { LineageCanvas } from "../../graph/LineageCanvas";
import { useCredential } from "../../hooks/useCredential";
import type { Lineage } from "../../hooks/useLineage";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import { BeforeHorizon, horizonOf } from "./BeforeHorizon";
import { isNotThen, NotThen } from "./NotThen";
import { ReversedWindow } from "./ReversedWindow";

interface Props {
  lineage: Lineage;
  registryEnabled: boolean;
  navigate: Navigate;
  onSelect: (id: string | null) => void;
}

export function GraphArea({ lineage, registryEnabled, navigate, onSelect }: Props) {
  const { registryView, focus, focused, fullGraph, graph, subgraph } = lineage;
  const ns = lineage.params.ns;
  const source = registryView ? lineage.registry : lineage.olGraph;
  const what = registryView ? "the registry lineage" : "the lineage graph";
  if (registryView && !registryEnabled) {
    return (
      <Empty title="No feature repository">
        This server was started without a Feast feature repository, so it has no registry lineage. Start it from the
        repository: <code>feast-lineage -c path/to/feature_repo ui</code>.
      </Empty>
    );
  }
  if (!registryView && lineage.time.reversed) return <ReversedWindow time={lineage.time} navigate={navigate} />;
  // A time before the server's retention horizon: said so, with a way to its oldest instant.
  const refused = registryView
    ? null
    : (horizonOf(source.error, lineage.time) ??
      (focus ? horizonOf(subgraph.error, lineage.time) : null) ??
      horizonOf(lineage.diff.error, lineage.time));
  if (refused) return <BeforeHorizon {...refused} time={lineage.time} navigate={navigate} />;
  if (source.error) return <Failure error={source.error} what={what} onRetry={source.refetch} />;
  if (!fullGraph) return <Loading what={what} />;
  if (focus && subgraph.error && isNotThen(subgraph.error, lineage.time)) {
    return (
      <NotThen name={focus.name} time={lineage.time} navigate={navigate}>
        <button type="button" className="btn" onClick={() => navigate(refPatch(null, "focus"), { push: true })}>
          Show the whole graph then
        </button>
      </NotThen>
    );
  }
  if (focus && subgraph.error) {
    return (
      <Failure error={subgraph.error} what="this node's lineage" onRetry={subgraph.refetch}>
        <button type="button" className="btn" onClick={() => navigate(refPatch(null, "focus"), { push: true })}>
          Show whole graph
        </button>
      </Failure>
    );
  }
  if (focus && !focused) {
    return subgraph.isFetching || lineage.reachPending ? (
      <Loading what="this node's lineage" />
    ) : (
      <Empty title="That node is not in this graph">
        It may have been removed, or it is outside the namespace filter.{" "}
        <button type="button" className="link" onClick={() => navigate(refPatch(null, "focus"))}>
          Show the whole graph
        </button>
      </Empty>
    );
  }
  if (!graph) return null;
  if (graph.nodes.length === 0) {
    if (registryView) return <NoFeastObjects ns={ns ?? null} />;
    return ns ? (
      <Empty title={`Nothing in namespace ${ns}`}>
        <button type="button" className="link" onClick={() => navigate({ ns: null })}>
          Clear the namespace filter
        </button>{" "}
        or pick another namespace.
      </Empty>
    ) : (
      <Empty title="No lineage yet">
        Run <code>feast-lineage apply</code> with <code>openlineage.enabled: true</code>, or point any OpenLineage
        producer (Airflow, dbt, Spark) at <code>POST /api/v1/lineage</code> on this server.
      </Empty>
    );
  }
  return (
    <LineageCanvas
      graph={graph}
      center={focus ? (focused?.center ?? null) : null}
      selected={lineage.selectedId}
      onSelect={onSelect}
    />
  );
}

/** An empty registry view: nothing applied yet, or a project the caller's key may not see. */
function NoFeastObjects({ ns }: { ns: string | null }) {
  const own = useOwnProject(ns === null);
  const keyInUse = useKeyInUse();
  const credential = useCredential();
  if (ns === null && own.isPending) return <Loading what="the registry lineage" />;
  const hidden = own.error instanceof ApiError && (own.error.status === 403 || own.error.status === 401);
  if (hidden) {
    return (
      <div className="status status-empty" role="status" data-testid="project-hidden">
        <div className="status-title">
          {keyInUse ? "Your key cannot see this repository's project" : "Without a key you cannot see this repository's project"}
        </div>
        <div className="status-body">
          Its Feast objects are in the registry, but the server shows only the projects{" "}
          {keyInUse ? "this key" : "open to anyone"} may see. To use {keyInUse ? `another ${credential.field}` : credential.ask}:{" "}
          <button type="button" className="btn" onClick={openKeyForm}>
            {keyInUse ? "Change the key…" : "Enter a key…"}
          </button>
        </div>
      </div>
    );
  }
  return (
    <Empty title={ns ? `Project ${ns} has no Feast objects` : "The registry has no Feast objects yet"}>
      Define entities, data sources and feature views in your feature repository and run{" "}
      <code>feast-lineage apply</code>, then reload.
    </Empty>
  );
}
