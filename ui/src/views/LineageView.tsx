// The Lineage tab: the OpenLineage graph of every producer, or (the "Feast
// only lineage" switch) the registry's graph; a namespace filter; search that
// focuses a node's upstream and downstream; the details panel.

import { useCallback, useEffect, useMemo } from "react";
import { useGraph, useNamespaces, useRegistry, useSubgraph } from "../api/queries";
import { Empty, Failure, Loading } from "../components/Status";
import { LineageCanvas } from "../graph/LineageCanvas";
import { KIND_STYLES, LEGEND_ORDER, type VisualKind } from "../graph/kinds";
import {
  feastObjectName,
  fromOpenLineage,
  fromRegistry,
  neighbourhood,
  type JobsShown,
  type LGraph,
  type LNode,
} from "../graph/model";
import type { Navigate, Patch, Route } from "../route";
import { isFeastKind, refPatch, selectionId, selectionOf } from "../selection";
import type { Direction, UiSettings } from "../types";
import { DetailsPanel } from "./details/DetailsPanel";
import { SearchBox } from "./SearchBox";

const GRAPH_LIMIT = 5000;
const DEPTHS = [1, 2, 3, 4, 5, 10, 20];

interface Props {
  settings: UiSettings;
  route: Route;
  navigate: Navigate;
}

export function LineageView({ settings, route, navigate }: Props) {
  const consumer = settings.consumer_enabled;
  const wantsRegistry = !consumer || route.view === "feast";
  const ns = route.ns ?? null;
  const depth = Math.min(20, Math.max(0, Number(route.depth ?? 2) || 2));
  const direction: Direction =
    route.dir === "upstream" || route.dir === "downstream" ? route.dir : "both";
  const jobs: JobsShown = route.jobs === "all" || route.jobs === "none" ? route.jobs : "runtime";

  // The OpenLineage graph: always asked for when there is a consumer, so an
  // empty store can fall back to the registry view.
  const olGraph = useGraph(ns, GRAPH_LIMIT, consumer && route.view !== "feast");
  const olEmpty = consumer && route.view !== "openlineage" && olGraph.data?.total_nodes === 0 && !ns;
  const registryView = wantsRegistry || olEmpty;

  const registry = useRegistry(registryView && settings.registry_enabled);

  const chosen = selectionOf(route, registryView, "node");
  // (A Feast kind in the OpenLineage view waits for its dataset to be found.)
  const selection = chosen && (registryView || !isFeastKind(chosen.type)) ? chosen : null;
  const focus = selectionOf(route, registryView, "focus");
  const olFocus = !registryView && focus && (focus.type === "job" || focus.type === "dataset") ? focus : null;
  const subgraph = useSubgraph(
    olFocus ? { type: olFocus.type as "job" | "dataset", namespace: olFocus.namespace, name: olFocus.name } : null,
    depth,
    direction,
  );

  const fullGraph: LGraph | null = useMemo(() => {
    if (registryView) {
      if (!registry.data) return null;
      const graph = fromRegistry(registry.data);
      if (!ns) return graph;
      return fromRegistry({
        ...registry.data,
        nodes: registry.data.nodes.filter((n) => n.project === ns),
      });
    }
    return olGraph.data ? fromOpenLineage(olGraph.data, { jobs }) : null;
  }, [registryView, registry.data, olGraph.data, ns, jobs]);

  // Links from the registry view name Feast objects: find their datasets here.
  useEffect(() => {
    if (registryView || !olGraph.data) return;
    for (const key of ["node", "focus"] as const) {
      const ref = selectionOf(route, false, key);
      if (!ref || !isFeastKind(ref.type)) continue;
      const match = olGraph.data.nodes.find(
        (n) => n.feast?.project === ref.namespace && n.feast?.type === ref.type && feastObjectName(n) === ref.name,
      );
      navigate(match ? refPatch({ type: match.kind, namespace: match.namespace, name: match.name }, key) : refPatch(null, key));
    }
  }, [registryView, olGraph.data, route, navigate]);

  const focused = useMemo(() => {
    if (!focus) return null;
    if (registryView) {
      if (!fullGraph) return null;
      const id = selectionId(focus);
      if (!fullGraph.byId.has(id)) return null;
      return { graph: neighbourhood(fullGraph, id, depth, direction), center: id, truncated: false };
    }
    if (!subgraph.data) return null;
    const graph = fromOpenLineage(subgraph.data, { jobs, keep: subgraph.data.center });
    const center = graph.drawnAs.get(subgraph.data.center) ?? subgraph.data.center;
    return { graph, center, truncated: subgraph.data.truncated };
  }, [focus, registryView, fullGraph, subgraph.data, depth, direction, jobs]);

  const graph = focus ? (focused?.graph ?? null) : fullGraph;
  const selectedId = selection ? (graph?.drawnAs.get(selectionId(selection)) ?? selectionId(selection)) : null;
  const drawnSelected = selectedId ? (graph?.byId.get(selectedId) ?? fullGraph?.byId.get(selectedId) ?? null) : null;

  const select = useCallback(
    (id: string | null) => {
      if (id === null) {
        navigate(refPatch(null));
        return;
      }
      const node = graph?.byId.get(id);
      if (node) navigate(refPatch(node), { push: true });
    },
    [graph, navigate],
  );

  const focusOn = useCallback(
    (node: LNode) => navigate({ ...refPatch(node), ...refPatch(node, "focus") }, { push: true }),
    [navigate],
  );

  const toggleFeast = (on: boolean) => {
    const patch: Patch = { view: on ? "feast" : "openlineage", ns: null, ...refPatch(null, "focus"), ...refPatch(null) };
    const node = drawnSelected;
    const feast = node?.ol?.feast;
    if (on && node?.ol && feast?.type && isFeastKind(feast.type) && feast.project) {
      const name = feastObjectName(node.ol) ?? feast.name;
      Object.assign(patch, refPatch({ type: feast.type, namespace: feast.project, name }));
    } else if (!on && node?.reg) {
      Object.assign(patch, refPatch({ type: node.reg.type, namespace: node.reg.project, name: node.reg.name }));
    }
    navigate(patch, { push: true });
  };

  const namespaces = useNamespaces(consumer && !registryView);
  const nsOptions = registryView
    ? (registry.data?.projects ?? [])
    : (namespaces.data?.items.map((item) => item.namespace) ?? []);

  // What to show in the canvas area.
  let body: React.ReactNode;
  const error = registryView ? registry.error : olGraph.error;
  const retry = registryView ? registry.refetch : olGraph.refetch;
  if (registryView && !settings.registry_enabled) {
    body = (
      <Empty title="No feature repository">
        This server was started without a Feast feature repository, so it has no registry lineage. Start it from the
        repository: <code>feast-lineage -c path/to/feature_repo ui</code>.
      </Empty>
    );
  } else if (error) {
    body = <Failure error={error} what={registryView ? "the registry lineage" : "the lineage graph"} onRetry={retry} />;
  } else if (!fullGraph) {
    body = <Loading what={registryView ? "the registry lineage" : "the lineage graph"} />;
  } else if (focus && subgraph.error) {
    body = (
      <Failure error={subgraph.error} what="this node's lineage" onRetry={subgraph.refetch}>
        <button type="button" className="btn" onClick={() => navigate(refPatch(null, "focus"), { push: true })}>
          Show whole graph
        </button>
      </Failure>
    );
  } else if (focus && !focused) {
    body = subgraph.isFetching ? (
      <Loading what="this node's lineage" />
    ) : (
      <Empty title="That node is not in this graph">
        It may have been removed, or it is outside the namespace filter.{" "}
        <button type="button" className="link" onClick={() => navigate(refPatch(null, "focus"))}>
          Show the whole graph
        </button>
      </Empty>
    );
  } else if (graph && graph.nodes.length === 0) {
    body = registryView ? (
      <Empty title={ns ? `Project ${ns} has no Feast objects` : "The registry has no Feast objects yet"}>
        Define entities, data sources and feature views in your feature repository and run{" "}
        <code>feast-lineage apply</code>, then reload.
      </Empty>
    ) : ns ? (
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
  } else if (graph) {
    body = (
      <LineageCanvas graph={graph} center={focus ? (focused?.center ?? null) : null} selected={selectedId} onSelect={select} />
    );
  }

  const kindsShown = useMemo(() => {
    const counts = new Map<VisualKind, number>();
    for (const node of graph?.nodes ?? []) counts.set(node.kind, (counts.get(node.kind) ?? 0) + 1);
    return LEGEND_ORDER.filter((k) => counts.has(k)).map((k) => [k, counts.get(k) ?? 0] as const);
  }, [graph]);

  const truncated = !registryView && !focus && olGraph.data && olGraph.data.total_nodes > olGraph.data.nodes.length;

  return (
    <div className="lineage">
      <div className="toolbar" role="toolbar" aria-label="Lineage controls">
        <SearchBox
          graph={fullGraph}
          serverSearch={!registryView && !!truncated}
          onPick={focusOn}
          onPickRef={(ref) => navigate({ ...refPatch(ref), ...refPatch(ref, "focus") }, { push: true })}
        />
        <label className="field">
          <span>{registryView ? "Project" : "Namespace"}</span>
          <select
            value={ns ?? ""}
            onChange={(e) => navigate({ ns: e.target.value || null, ...refPatch(null, "focus") }, { push: true })}
            aria-label={registryView ? "Project filter" : "Namespace filter"}
          >
            <option value="">{registryView ? "All projects" : "All namespaces"}</option>
            {nsOptions.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className={`switch ${consumer ? "" : "is-locked"}`} title={consumer ? "" : "The consumer is off"}>
          <input
            type="checkbox"
            checked={registryView}
            disabled={!consumer}
            onChange={(e) => toggleFeast(e.target.checked)}
            aria-label="Feast only lineage"
          />
          <span className="switch-track" />
          Feast only lineage
        </label>
        {!registryView && (
          <label className="field" title="Hidden jobs are drawn as direct edges from their inputs to their outputs">
            <span>Jobs</span>
            <select
              value={jobs}
              onChange={(e) => navigate({ jobs: e.target.value === "runtime" ? null : e.target.value })}
              aria-label="Jobs shown"
            >
              <option value="runtime">all but Feast apply jobs</option>
              <option value="all">all jobs</option>
              <option value="none">none (datasets only)</option>
            </select>
          </label>
        )}
        {focus && (
          <div className="focus-controls" data-testid="focus-controls">
            <span className="focus-label">
              Focused on <strong>{focus.name}</strong>
            </span>
            <label className="field">
              <span>Depth</span>
              <select value={depth} onChange={(e) => navigate({ depth: e.target.value })} aria-label="Depth">
                {DEPTHS.map((d) => (
                  <option key={d} value={d}>
                    {d === 20 ? "all (20)" : d}
                  </option>
                ))}
              </select>
            </label>
            <label className="field">
              <span>Direction</span>
              <select
                value={direction}
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
        )}
        <span className="toolbar-spacer" />
        {graph && (
          <span className="counts" data-testid="graph-counts">
            {graph.nodes.length.toLocaleString("en-US")} nodes · {graph.edges.length.toLocaleString("en-US")} edges
          </span>
        )}
      </div>
      {!consumer && (
        <div className="banner banner-info" data-testid="consumer-off">
          Showing the Feast registry only: the OpenLineage consumer is off. To see lineage from every producer (Airflow,
          dbt, Spark, …) and runs and events, set <code>openlineage.consumer.enabled: true</code> in{" "}
          <code>feature_store.yaml</code> (with a SQL registry or <code>consumer.connection_string</code>) and restart{" "}
          <code>feast-lineage ui</code>.
        </div>
      )}
      {olEmpty && route.view !== "feast" && (
        <div className="banner banner-info" data-testid="no-events">
          No OpenLineage events yet, so this is the Feast registry view. Run <code>feast-lineage apply</code> or send
          events to <code>POST /api/v1/lineage</code>, then reload to see the OpenLineage graph.
        </div>
      )}
      {truncated && olGraph.data && (
        <div className="banner banner-warn">
          Showing the first {olGraph.data.nodes.length.toLocaleString("en-US")} of{" "}
          {olGraph.data.total_nodes.toLocaleString("en-US")} nodes. Pick a namespace, or search for a node to see its
          lineage.
        </div>
      )}
      {focused?.truncated && (
        <div className="banner banner-warn">This node has more neighbours than shown; lower the depth.</div>
      )}
      <div className="lineage-main">
        <div className="lineage-canvas">
          {body}
          {kindsShown.length > 0 && (
            <div className="legend" aria-label="Legend">
              {kindsShown.map(([kind, count]) => (
                <span key={kind} className="legend-item">
                  <span className="legend-swatch" style={{ background: KIND_STYLES[kind].fill, borderColor: KIND_STYLES[kind].color }} />
                  {KIND_STYLES[kind].label} <span className="muted">{count}</span>
                </span>
              ))}
            </div>
          )}
        </div>
        {selection && (
          <DetailsPanel
            selection={selection}
            drawn={drawnSelected}
            route={route}
            navigate={navigate}
            onClose={() => navigate(refPatch(null))}
            consumerEnabled={consumer}
          />
        )}
      </div>
    </div>
  );
}
