// The Lineage tab: the OpenLineage graph of every producer, or (the "Feast
// only lineage" switch) the registry's graph; a namespace filter; search that
// focuses a node's upstream and downstream; the details panel. Its data comes
// from useLineage.

import { useCallback } from "react";
import type { LNode } from "../../graph/model";
import { feastObjectName } from "../../graph/model";
import { parseDepth } from "../../depth";
import { useCanonicalUrl } from "../../hooks/useCanonicalUrl";
import { useLineage } from "../../hooks/useLineage";
import { useTimeLink } from "../../hooks/useTimeLink";
import type { Navigate, Patch, Route } from "../../route";
import { isFeastKind, refPatch } from "../../selection";
import type { UiSettings } from "../../types";
import { ColumnView } from "../columns/ColumnView";
import { traceOf } from "../columns/trace";
import { DetailsPanel } from "../details/DetailsPanel";
import { Banners } from "./Banners";
import { GraphArea } from "./GraphArea";
import { HistoryBanner } from "./HistoryBanner";
import { Legend } from "./Legend";
import { LineageToolbar } from "./LineageToolbar";
import { describeTime, TimeLinkNote } from "./TimeLinkNote";

interface Props {
  settings: UiSettings;
  route: Route;
  navigate: Navigate;
}

export function LineageView({ settings, route, navigate }: Props) {
  const lineage = useLineage(settings, route, navigate);
  // depth=-5 is drawn (and asked for) as 1: the URL says so too.
  const depth = parseDepth(route.depth);
  useCanonicalUrl(route, navigate, { depth: depth === null ? null : String(depth) });
  // as_of=garbage: named in a note, and the URL says what is shown (the current graph).
  const timeNote = useTimeLink(route, navigate);
  const { graph, selection, drawnSelected } = lineage;

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

  // The switch keeps the node open: its Feast object, or the dataset of one.
  const toggleFeast = (on: boolean) => {
    const patch: Patch = { view: on ? "feast" : "openlineage", ns: null, ...refPatch(null, "focus"), ...refPatch(null) };
    const feast = drawnSelected?.ol?.feast;
    if (on && drawnSelected?.ol && feast?.type && isFeastKind(feast.type) && feast.project) {
      const name = feastObjectName(drawnSelected.ol) ?? feast.name;
      Object.assign(patch, refPatch({ type: feast.type, namespace: feast.project, name }));
    } else if (!on && drawnSelected?.reg) {
      const reg = drawnSelected.reg;
      Object.assign(patch, refPatch({ type: reg.type, namespace: reg.project, name: reg.name }));
    }
    navigate(patch, { push: true });
  };

  const panel = selection && (
    <DetailsPanel
      selection={selection}
      drawn={drawnSelected}
      route={route}
      navigate={navigate}
      onClose={() => navigate(refPatch(null))}
      consumerEnabled={lineage.consumer}
      schemaChange={drawnSelected ? (lineage.changes?.schemas.get(drawnSelected.id) ?? null) : null}
      jobChange={drawnSelected ? (lineage.changes?.jobs.get(drawnSelected.id) ?? null) : null}
    />
  );
  // A traced column (issue 25): the column view instead of the dataset graph.
  const trace = lineage.registryView ? null : traceOf(route);
  if (trace) {
    return (
      <ColumnView
        trace={trace}
        graphNodes={lineage.olGraph.data?.nodes ?? null}
        changes={lineage.changes}
        route={route}
        navigate={navigate}
        panel={panel}
        banner={
          <>
            {timeNote && <TimeLinkNote note={timeNote} shows={describeTime(lineage.time)} />}
            <HistoryBanner lineage={lineage} navigate={navigate} />
          </>
        }
      />
    );
  }

  return (
    <div className="lineage">
      <LineageToolbar lineage={lineage} navigate={navigate} onFocus={focusOn} onToggleFeast={toggleFeast} />
      <Banners lineage={lineage} route={route} navigate={navigate} timeNote={timeNote} readKey={settings.read_key} />
      <div className="lineage-main">
        <div className="lineage-canvas">
          <GraphArea
            lineage={lineage}
            registryEnabled={settings.registry_enabled}
            navigate={navigate}
            onSelect={select}
          />
          <Legend graph={graph} />
        </div>
        {panel}
      </div>
    </div>
  );
}
