// The Lineage tab's data: the graph to draw, derived from the URL and the
// server's answers. The OpenLineage graph (or, in the Feast-only view, the
// registry's), narrowed to a focused node's neighbourhood when one is
// focused (downstream, under a key that may not see everything, with what it
// reaches through hidden nodes: graph/throughHidden.ts); the node open in
// the details panel.

import { useEffect, useMemo } from "react";
import { useImpact } from "../api/health";
import { GRAPH_LIMIT, useDiff, useGraph, useNamespaces, useRegistry, useSubgraph } from "../api/queries";
import {
  childJobNames,
  feastObjectName,
  fromOpenLineage,
  fromRegistry,
  neighbourhood,
  type JobsShown,
  type LGraph,
  type LNode,
} from "../graph/model";
import { withHiddenStretches, withReached } from "../graph/throughHidden";
import { parseDepth } from "../depth";
import { drawnCounts, fromDiff, markChanges, type Changes } from "../history/changes";
import { historyQuery, isHistorical, timeView } from "../history/time";
import type { Navigate, Route } from "../route";
import { isFeastKind, refPatch, selectionId, selectionOf } from "../selection";
import type { Direction, UiSettings } from "../types";

/** The tab's settings, as the URL gives them. */
export interface LineageParams {
  /** The namespace (or, in the Feast-only view, project) filter. */
  ns: string | null;
  depth: number;
  direction: Direction;
  jobs: JobsShown;
}

export function lineageParams(route: Route): LineageParams {
  return {
    ns: route.ns ?? null,
    depth: parseDepth(route.depth) ?? 2,
    direction: route.dir === "upstream" || route.dir === "downstream" ? route.dir : "both",
    jobs: route.jobs === "all" || route.jobs === "none" ? route.jobs : "runtime",
  };
}

/** A focused node's neighbourhood, and the id of the node drawn for the focused one. */
export interface Focused {
  graph: LGraph;
  center: string;
  truncated: boolean;
  /** "Changes since…" over the neighbourhood, when asked. */
  changes?: Changes | null;
}

export function useLineage(settings: UiSettings, route: Route, navigate: Navigate) {
  const params = lineageParams(route);
  const { ns, depth, direction, jobs } = params;
  const consumer = settings.consumer_enabled;

  // The OpenLineage graph: always asked for when there is a consumer, so an
  // empty store can fall back to the registry view.
  const time = timeView(route);
  const history = historyQuery(time);
  // A reversed window is not asked for (the server refuses it): the tab says how to fix it.
  const olGraph = useGraph(ns, GRAPH_LIMIT, consumer && route.view !== "feast" && !time.reversed, history);
  // (A graph as of an instant before the first event is empty: still the OpenLineage view.)
  const olEmpty =
    consumer && route.view !== "openlineage" && olGraph.data?.total_nodes === 0 && !ns && !isHistorical(time);
  const registryView = !consumer || route.view === "feast" || olEmpty;
  const registry = useRegistry(registryView && settings.registry_enabled);
  const namespaces = useNamespaces(consumer && !registryView);

  const chosen = selectionOf(route, registryView, "node");
  // (A Feast kind in the OpenLineage view waits for its dataset to be found.)
  const selection = chosen && (registryView || !isFeastKind(chosen.type)) ? chosen : null;
  const focus = selectionOf(route, registryView, "focus");
  const olFocus = !registryView && focus && (focus.type === "job" || focus.type === "dataset") ? focus : null;
  const olCenter = olFocus && !time.reversed
    ? { type: olFocus.type as "job" | "dataset", namespace: olFocus.namespace, name: olFocus.name }
    : null;
  const subgraph = useSubgraph(olCenter, depth, direction, history);
  // Focused downstream now, under an authorizer (a key may not see every namespace): what
  // the node reaches through hidden nodes too, as /impact lists it, drawn from the whole graph.
  const throughHidden =
    olCenter !== null &&
    direction === "downstream" &&
    settings.authorizer !== "open" &&
    !time.changesSince &&
    Object.keys(history).length === 0;
  const impact = useImpact(throughHidden ? olCenter : null, depth);
  const whole = useGraph(null, GRAPH_LIMIT, throughHidden);
  // (Either failing, the subgraph is drawn alone.)
  const reaching = throughHidden && !impact.error && !whole.error;
  // "Changes since…": the server's diff from the earlier instant to the one
  // shown, centred as the graph is (the whole graph when it is the whole,
  // narrowed to its namespace when the graph is).
  const since = registryView || time.reversed ? null : time.changesSince;
  const diff = useDiff(
    since === null
      ? null
      : {
          from: since,
          to: time.asOf,
          center: olCenter ? { ...olCenter, depth, direction } : null,
          within: olCenter ? null : ns,
        },
  );
  const runCounts = time.window !== null;

  const olDiff = useMemo(() => {
    if (!since || olFocus || !olGraph.data || !diff.data) return null;
    return fromDiff(olGraph.data, diff.data, ns);
  }, [since, olFocus, olGraph.data, diff.data, ns]);

  const fullGraph: LGraph | null = useMemo(() => {
    if (registryView) {
      if (!registry.data) return null;
      if (!ns) return fromRegistry(registry.data);
      return fromRegistry({ ...registry.data, nodes: registry.data.nodes.filter((n) => n.project === ns) });
    }
    if (olDiff) return markChanges(fromOpenLineage(olDiff.merged, { jobs }), olDiff.merged, olDiff.changes);
    // "Changes since…" is laid out once, with what was removed: the graph waits for the diff (unless it failed).
    if (since && !olFocus && !diff.error) return null;
    return olGraph.data ? fromOpenLineage(olGraph.data, { jobs, runCounts }) : null;
  }, [registryView, registry.data, olGraph.data, ns, jobs, olDiff, runCounts, since, olFocus, diff.error]);

  // Links from the registry view name Feast objects: find their datasets here.
  useEffect(() => {
    if (registryView || !olGraph.data) return;
    for (const key of ["node", "focus"] as const) {
      const ref = selectionOf(route, false, key);
      if (!ref || !isFeastKind(ref.type)) continue;
      const match = olGraph.data.nodes.find(
        (n) => n.feast?.project === ref.namespace && n.feast?.type === ref.type && feastObjectName(n) === ref.name,
      );
      // The same node named anew: what is open in its details stays.
      const found = match && { type: match.kind, namespace: match.namespace, name: match.name };
      navigate(found ? refPatch(found, key, { same: true }) : refPatch(null, key));
    }
  }, [registryView, olGraph.data, route, navigate]);

  // Child jobs' own names from the whole graph, for a focused graph that leaves their parents out.
  const ownNames = useMemo(() => (olGraph.data ? childJobNames(olGraph.data.edges) : undefined), [olGraph.data]);

  const focused: Focused | null = useMemo(() => {
    if (!focus) return null;
    if (registryView) {
      if (!fullGraph) return null;
      const id = selectionId(focus);
      if (!fullGraph.byId.has(id)) return null;
      return { graph: neighbourhood(fullGraph, id, depth, direction), center: id, truncated: false };
    }
    if (!subgraph.data) return null;
    const keep = subgraph.data.center;
    let graph: LGraph;
    let changes: Changes | null = null;
    let incomplete = false; // reached nodes not drawn (throughHidden.ts)
    if (since && (diff.data || !diff.error)) {
      if (!diff.data) return null;
      const merged = fromDiff(subgraph.data, diff.data);
      changes = merged.changes;
      graph = markChanges(fromOpenLineage(merged.merged, { jobs, keep, ownNames }), merged.merged, merged.changes);
    } else if (reaching) {
      // (Drawn once both are here: the node alone first would read as all it reaches.)
      if (!impact.data || !whole.data) return null;
      const reached = withReached(subgraph.data, whole.data, impact.data);
      graph = withHiddenStretches(fromOpenLineage(reached.input, { jobs, keep, ownNames }), reached.input, reached.paths);
      incomplete = reached.incomplete;
    } else graph = fromOpenLineage(subgraph.data, { jobs, keep, runCounts, ownNames });
    const center = graph.drawnAs.get(keep) ?? keep;
    return { graph, center, truncated: subgraph.data.truncated || incomplete, changes };
  }, [focus, registryView, fullGraph, subgraph.data, depth, direction, jobs, since, diff.data, diff.error, runCounts, ownNames, reaching, impact.data, whole.data]);

  const graph = focus ? (focused?.graph ?? null) : fullGraph;
  const selectedId = selection ? (graph?.drawnAs.get(selectionId(selection)) ?? selectionId(selection)) : null;
  const drawnSelected: LNode | null = selectedId
    ? (graph?.byId.get(selectedId) ?? fullGraph?.byId.get(selectedId) ?? null)
    : null;

  const nsOptions = registryView
    ? (registry.data?.projects ?? [])
    : (namespaces.data?.namespaces ?? []);
  // The whole graph is larger than the part loaded.
  const truncated = !registryView && !focus && !!olGraph.data && olGraph.data.total_nodes > olGraph.data.nodes.length;

  const changes = focus ? (focused?.changes ?? null) : (olDiff?.changes ?? null);
  // Counted as drawn: the banner's numbers are the graph's.
  const changeCounts = useMemo(() => (changes && graph ? drawnCounts(graph, changes) : null), [changes, graph]);

  return {
    params,
    /** When the view answers for (the URL's as_of, seen, changes_since). */
    time,
    /** "Changes since…": what changed, once the graph and the diff are here. */
    changes,
    /** What changed as the graph draws it (the banner's counts). */
    changeCounts,
    /** The diff "Changes since…" draws (its loading and errors). */
    diff,
    consumer,
    registryView,
    /** The consumer has no events yet: the registry view is shown instead. */
    olEmpty,
    olGraph,
    registry,
    subgraph,
    /** What the focused node reaches through hidden nodes is still being asked for. */
    reachPending: reaching && (!impact.data || !whole.data),
    nsOptions,
    selection,
    focus,
    fullGraph,
    focused,
    /** What the canvas draws: the focused neighbourhood, or the whole graph. */
    graph,
    selectedId,
    drawnSelected,
    truncated,
  };
}

export type Lineage = ReturnType<typeof useLineage>;
