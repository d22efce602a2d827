// The Lineage tab's column view: one column's lineage through every hop
// (across producers and symlinked aliases), each dataset a box of columns.
// Its state is in the URL (trace.ts); the details panel stays beside it.

import { useCallback, useMemo, type ReactNode } from "react";
import { useColumns } from "../../api/columns";
import { ApiError } from "../../api/http";
import { Failure, Loading } from "../../components/Status";
import { feastObjectName, olKind } from "../../graph/model";
import type { Navigate, Route } from "../../route";
import { refPatch, selectionOf } from "../../selection";
import type { GraphNode } from "../../types";
import { hopsBeyond, NOTHING_BEYOND, reachesDepth } from "./beyond";
import { ColumnCanvas } from "./ColumnCanvas";
import { columnCounts } from "./ColumnCounts";
import { ColumnToolbar } from "./ColumnToolbar";
import type { Changes } from "../../history/changes";
import { boxId, buildPicture, onGroups, withRemoved, type ColumnChanges, type DatasetBox } from "./model";
import { MAX_DEPTH, tracePatch, traceQuery, type Trace } from "./trace";
import { timeView } from "../../history/time";
import { BeforeHorizon, horizonOf } from "../lineage/BeforeHorizon";
import "./columns.css";

interface Props {
  trace: Trace;
  /** The lineage graph's nodes (for each dataset's kind, label and schema), if loaded. */
  graphNodes: GraphNode[] | null;
  route: Route;
  navigate: Navigate;
  /** The details panel, when a node is open. */
  panel: ReactNode;
  /** Above the columns: the Lineage tab's history banner (as of an instant), if any. */
  banner?: ReactNode;
  /** "Changes since…": the diff, whose column edges added and removed are marked. */
  changes?: Changes | null;
}

export function ColumnView({ trace, graphNodes, route, navigate, panel, banner, changes = null }: Props) {
  const fetched = useColumns(traceQuery(trace));
  // Whether the path goes on past the depth shown: the whole walk, asked for
  // when the answer reaches its depth somewhere.
  const probe = fetched.data && trace.depth < MAX_DEPTH && reachesDepth(fetched.data, trace.depth);
  const whole = useColumns(probe ? { ...traceQuery(trace), depth: MAX_DEPTH } : null);
  const beyond = useMemo(
    () => (probe && whole.data ? hopsBeyond(whole.data, trace) : NOTHING_BEYOND),
    [probe, whole.data, trace],
  );
  const onExtend = useCallback(
    (hops: number) => navigate({ depth: Math.min(MAX_DEPTH, trace.depth + hops) }, { push: true }),
    [navigate, trace.depth],
  );
  const index = useMemo(() => {
    const out = new Map<string, GraphNode>();
    for (const node of graphNodes ?? []) if (node.kind === "dataset") out.set(boxId(node.namespace, node.name), node);
    return out;
  }, [graphNodes]);
  const schemaOf = useCallback(
    (namespace: string, name: string) => index.get(boxId(namespace, name))?.schema_fields,
    [index],
  );
  const columnChanges: ColumnChanges | null = useMemo(
    () =>
      changes && fetched.data
        ? onGroups(fetched.data, { added: changes.columnsAdded, removed: changes.columnsRemoved })
        : null,
    [changes, fetched.data],
  );
  const picture = useMemo(() => {
    if (!fetched.data) return null;
    if (!columnChanges) return buildPicture(fetched.data, schemaOf);
    const datasets = (graphNodes ?? []).filter((n) => n.kind === "dataset");
    return buildPicture(withRemoved(fetched.data, columnChanges.removed, datasets), schemaOf, columnChanges);
  }, [fetched.data, schemaOf, columnChanges, graphNodes]);
  const look = useCallback(
    (box: Pick<DatasetBox, "id" | "name">) => {
      const node = index.get(box.id);
      return node ? { kind: olKind(node), label: feastObjectName(node) ?? node.name } : { kind: "dataset" as const, label: box.name };
    },
    [index],
  );
  const selected = selectionOf(route, false, "node");
  const selectedBox = selected?.type === "dataset" ? boxId(selected.namespace, selected.name) : null;
  const selectedJob = selected?.type === "job" ? `${selected.namespace}\u0000${selected.name}` : null;
  const onTrace = useCallback(
    (box: DatasetBox, field: string) => navigate(tracePatch({ namespace: box.namespace, name: box.name, field }), { push: true }),
    [navigate],
  );
  const onOpenDataset = useCallback(
    (box: DatasetBox) => navigate(refPatch({ type: "dataset", namespace: box.namespace, name: box.name }), { push: true }),
    [navigate],
  );
  const onOpenJob = useCallback(
    (job: { namespace: string; name: string }) => navigate(refPatch({ type: "job", ...job }), { push: true }),
    [navigate],
  );
  const data = fetched.data;
  const counts = picture
    ? {
        boxes: picture.boxes.length,
        fields: picture.boxes.reduce((sum, b) => sum + b.path.filter((r) => r.field !== null).length, 0),
        edges: picture.edges.length,
      }
    : null;

  const time = timeView(route);
  const refused = horizonOf(fetched.error, time);
  const unknownField =
    fetched.error instanceof ApiError && fetched.error.status === 404 && fetched.error.message.startsWith("no column");
  // Its columns, as the details panel lists them: the schema's and those column lineage names.
  const everyColumn = useColumns(
    unknownField ? { ...traceQuery(trace), field: null, direction: "both", depth: 1, indirect: true } : null,
  );
  let body: ReactNode;
  if (unknownField) {
    // A column the dataset's schema does not have: the server's message (its columns), and a way to trace one.
    const schema = schemaOf(trace.namespace, trace.name) ?? [];
    const all = everyColumn.data;
    const mine = all && all.dataset.namespace === trace.namespace && all.dataset.name === trace.name;
    const known = mine ? columnCounts(all, schema).columns.map((c) => ({ name: c.field })) : schema;
    body = (
      <div className="status status-error" role="alert" data-testid="unknown-column">
        <div className="status-title">No such column</div>
        <div className="status-body">{fetched.error?.message}</div>
        <div className="status-actions column-choices">
          {known.slice(0, 30).map((f) => (
            <button
              key={f.name}
              type="button"
              className="btn mono"
              onClick={() => navigate(tracePatch({ namespace: trace.namespace, name: trace.name, field: f.name }))}
            >
              {f.name}
            </button>
          ))}
          <button type="button" className="btn" onClick={() => navigate(tracePatch(null), { push: true })}>
            Back to the dataset graph
          </button>
        </div>
      </div>
    );
  } else if (refused) {
    body = <BeforeHorizon {...refused} time={time} navigate={navigate} />;
  } else if (fetched.error) {
    body = (
      <Failure error={fetched.error} what="the column lineage" onRetry={fetched.refetch}>
        <button type="button" className="btn" onClick={() => navigate(tracePatch(null), { push: true })}>
          Back to the dataset graph
        </button>
      </Failure>
    );
  } else if (!picture || !data) {
    body = <Loading what="the column lineage" />;
  } else {
    body = (
      <>
        {data.edges.length === 0 && (
          <div className="banner banner-info column-none">
            No column lineage reaches {trace.field} within {trace.depth} steps this way: pick another direction or a
            larger depth, or include INDIRECT edges.
          </div>
        )}
        <ColumnCanvas
          key={`${trace.namespace}\u0000${trace.name}\u0000${trace.field}`}
          picture={picture}
          look={look}
          selectedBox={selectedBox}
          selectedJob={selectedJob}
          onTrace={onTrace}
          onOpenDataset={onOpenDataset}
          onOpenJob={onOpenJob}
          beyond={beyond}
          onExtend={onExtend}
          tracedBox={boxId(trace.namespace, trace.name)}
        />
        <div className="legend column-legend" aria-label="Legend">
          <span className="legend-item">
            <span className="legend-line" /> DIRECT (the value comes from it)
          </span>
          <span className="legend-item">
            <span className="legend-line is-dashed" /> INDIRECT (filter, join, grouping, …)
          </span>
          <span className="legend-item">
            <span className="legend-swatch traced-swatch" /> the traced column
          </span>
          {columnChanges && (
            <>
              <span className="legend-item change-green" data-testid="column-legend-added">
                <span className="legend-line cedge-added" /> + added since
              </span>
              <span className="legend-item change-red">
                <span className="legend-line is-dashed cedge-removed" /> − removed since
              </span>
            </>
          )}
        </div>
      </>
    );
  }

  return (
    <div className="lineage column-view" data-testid="column-view">
      <ColumnToolbar
        trace={trace}
        label={look({ id: boxId(trace.namespace, trace.name), name: trace.name }).label}
        jobs={picture?.jobs ?? []}
        counts={counts}
        navigate={navigate}
      />
      {data?.truncated && (
        <div className="banner banner-warn">
          Showing the nearest {data.limit.toLocaleString("en-US")} columns of more in reach; lower the depth.
        </div>
      )}
      {banner}
      <div className="lineage-main">
        <div className="lineage-canvas">{body}</div>
        {panel}
      </div>
    </div>
  );
}
