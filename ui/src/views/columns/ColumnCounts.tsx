// A dataset's columns in its details panel, each with how many columns feed
// it (upstream) and how many it feeds (downstream), one step away, from the
// consumer's column lineage. A click on a column opens the column view.

import { useColumns, type ColumnLineage } from "../../api/columns";
import { Failure, Loading } from "../../components/Status";
import type { Navigate } from "../../route";
import type { SchemaField } from "../../types";
import { focusWhenShown } from "../../focus";
import { tracePatch } from "./trace";

export interface ColumnCount {
  field: string;
  type: string | null;
  upstream: number;
  downstream: number;
}

/** Per column of the asked dataset: its direct inputs and outputs (distinct columns); schema columns without any too. */
export function columnCounts(answer: ColumnLineage, schema: SchemaField[]): { columns: ColumnCount[]; wholeInputs: number } {
  const { namespace, name } = answer.dataset;
  const own = answer.nodes.filter((n) => n.namespace === namespace && n.name === name);
  const up = new Map<string, Set<string>>();
  const down = new Map<string, Set<string>>();
  for (const e of answer.edges) {
    if (!up.has(e.target)) up.set(e.target, new Set());
    up.get(e.target)!.add(e.source);
    if (!down.has(e.source)) down.set(e.source, new Set());
    down.get(e.source)!.add(e.target);
  }
  const columns: ColumnCount[] = [];
  let wholeInputs = 0;
  const seen = new Set<string>();
  for (const node of own) {
    if (node.field === null) {
      wholeInputs = up.get(node.id)?.size ?? 0;
      continue;
    }
    seen.add(node.field);
    columns.push({
      field: node.field,
      type: node.type ?? null,
      upstream: up.get(node.id)?.size ?? 0,
      downstream: down.get(node.id)?.size ?? 0,
    });
  }
  for (const f of schema) {
    if (!seen.has(f.name)) columns.push({ field: f.name, type: f.type ?? null, upstream: 0, downstream: 0 });
  }
  const order = new Map(schema.map((f, i) => [f.name, i]));
  columns.sort((a, b) => (order.get(a.field) ?? 1e9) - (order.get(b.field) ?? 1e9) || a.field.localeCompare(b.field));
  return { columns, wholeInputs };
}

interface Props {
  namespace: string;
  name: string;
  schema: SchemaField[];
  /** The time control's instant: the counts as of then; null: now. */
  asOf?: string | null;
  navigate: Navigate;
}

export function ColumnCounts({ namespace, name, schema, asOf = null, navigate }: Props) {
  const fetched = useColumns({ namespace, name, field: null, direction: "both", depth: 1, indirect: true, asOf });
  if (fetched.error) return <Failure error={fetched.error} what="the column lineage" onRetry={fetched.refetch} />;
  const data = fetched.data;
  if (!data || data.dataset.namespace !== namespace || data.dataset.name !== name) return <Loading what="column lineage" />;
  const { columns, wholeInputs } = columnCounts(data, schema);
  const trace = (field: string) => {
    navigate({ tab: "lineage", view: null, ...tracePatch({ namespace, name, field }), depth: null, dir: null }, { push: true });
    // The keyboard's place: the column view's heading, once it is drawn.
    focusWhenShown("[data-testid=column-traced]");
  };
  return (
    <div data-testid="column-counts-list">
      <p className="muted small">Columns one step up and downstream; click a column to trace it through every hop.</p>
      <table className="table schema column-count-table">
        <thead>
          <tr>
            <th>Column</th>
            <th className="num" title="Columns it is computed from">Upstream</th>
            <th className="num" title="Columns computed from it">Downstream</th>
          </tr>
        </thead>
        <tbody>
          {columns.map((c) => (
            <tr key={c.field} data-field={c.field}>
              <td className="mono">
                {c.upstream + c.downstream > 0 ? (
                  <button type="button" className="link" onClick={() => trace(c.field)} title={`Trace ${c.field}`}>
                    {c.field}
                  </button>
                ) : (
                  c.field
                )}
              </td>
              <td className="num" data-testid="col-upstream">
                {c.upstream}
              </td>
              <td className="num" data-testid="col-downstream">
                {c.downstream}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {wholeInputs > 0 && (
        <p className="muted small">
          {wholeInputs} more column{wholeInputs === 1 ? "" : "s"} affect every column (filters, joins, grouping).
        </p>
      )}
    </div>
  );
}
