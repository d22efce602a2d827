// Notes above the graph: a malformed time in the link, the consumer is off, no events yet (or none the
// caller may see, where reads take a key), only part of the graph loaded, a focused node with more
// neighbours than shown.

import { useKeyInUse } from "../../components/KeyForm";
import type { Lineage } from "../../hooks/useLineage";
import type { UiSettings } from "../../types";
import type { TimeLinkNote as Note } from "../../hooks/useTimeLink";
import type { Navigate, Route } from "../../route";
import { HistoryBanner } from "./HistoryBanner";
import { describeTime, TimeLinkNote } from "./TimeLinkNote";

interface Props {
  lineage: Lineage;
  route: Route;
  navigate: Navigate;
  /** A malformed time the link gave, and what is shown instead. */
  timeNote: Note | null;
  /** Whether reads take a key: then an empty graph is only what the caller may see. */
  readKey: UiSettings["read_key"];
}

export function Banners({ lineage, route, navigate, timeNote, readKey }: Props) {
  const page = lineage.olGraph.data;
  const keyInUse = useKeyInUse();
  return (
    <>
      {timeNote && <TimeLinkNote note={timeNote} shows={describeTime(lineage.time)} />}
      <HistoryBanner lineage={lineage} navigate={navigate} />
      {!lineage.consumer && (
        <div className="banner banner-info" data-testid="consumer-off">
          Showing the Feast registry only: the OpenLineage consumer is off. To see lineage from every producer (Airflow,
          dbt, Spark, …) and runs and events, set <code>openlineage.consumer.enabled: true</code> in{" "}
          <code>feature_store.yaml</code> (with a SQL registry or <code>consumer.connection_string</code>) and restart{" "}
          <code>feast-lineage ui</code>.
        </div>
      )}
      {lineage.olEmpty && route.view !== "feast" && readKey === "none" && (
        <div className="banner banner-info" data-testid="no-events">
          No OpenLineage events yet, so this is the Feast registry view. Run <code>feast-lineage apply</code> or send
          events to <code>POST /api/v1/lineage</code>, then reload to see the OpenLineage graph.
        </div>
      )}
      {/* Reads filtered by key: the store may hold events the caller may not see (never said which). */}
      {lineage.olEmpty && route.view !== "feast" && readKey !== "none" && (
        <div className="banner banner-info" data-testid="no-events">
          No OpenLineage lineage {keyInUse ? "your key can see" : "you can see without a key"}, so this is the Feast
          registry view. The server shows only the namespaces {keyInUse ? "this key may see" : "open to anyone"}:{" "}
          {keyInUse ? "another key" : "a key"} may show more.
        </div>
      )}
      {lineage.truncated && page && (
        <div className="banner banner-warn">
          Showing the first {page.nodes.length.toLocaleString("en-US")} of {page.total_nodes.toLocaleString("en-US")}{" "}
          nodes. Pick a namespace, or search for a node to see its lineage.
        </div>
      )}
      {lineage.focused?.truncated && (
        <div className="banner banner-warn">This node has more neighbours than shown; lower the depth.</div>
      )}
    </>
  );
}
