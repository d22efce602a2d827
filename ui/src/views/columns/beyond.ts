// How far a traced column's path goes on past the depth shown: the column
// view asks for the whole path (depth 20) beside the one it draws, and says
// "+N more hops" at the edge it stops at.

import type { ColumnLineage } from "../../api/columns";
import type { Trace } from "./trace";
import { datasetId, fieldId } from "../../nodeId";

export interface Beyond {
  /** Hops upstream past the depth shown (0: the path ends within it). */
  upstream: number;
  /** Hops downstream past the depth shown. */
  downstream: number;
}

export const NOTHING_BEYOND: Beyond = { upstream: 0, downstream: 0 };

/** The largest number of steps from `start` over `next` (breadth first). */
function farthest(start: string[], next: Map<string, string[]>): number {
  const seen = new Set(start);
  let frontier = start;
  let steps = 0;
  while (frontier.length) {
    const found: string[] = [];
    for (const id of frontier) {
      for (const other of next.get(id) ?? []) {
        if (seen.has(other)) continue;
        seen.add(other);
        found.push(other);
      }
    }
    if (found.length) steps++;
    frontier = found;
  }
  return steps;
}

/**
 * How many more hops `whole` (the walk at the greatest depth) reaches each
 * way than `trace.depth`. Upstream starts from the field and its whole
 * dataset (its dataset-level inputs), as the API walks.
 */
export function hopsBeyond(whole: ColumnLineage, trace: Trace): Beyond {
  const inputs = new Map<string, string[]>();
  const outputs = new Map<string, string[]>();
  for (const e of whole.edges) {
    (inputs.get(e.target) ?? inputs.set(e.target, []).get(e.target)!).push(e.source);
    (outputs.get(e.source) ?? outputs.set(e.source, []).get(e.source)!).push(e.target);
  }
  const { namespace, name } = whole.dataset;
  const field = fieldId(namespace, name, trace.field);
  const dataset = datasetId(namespace, name);
  const up = trace.direction === "downstream" ? 0 : farthest([field, dataset], inputs);
  const down = trace.direction === "upstream" ? 0 : farthest([field], outputs);
  return { upstream: Math.max(0, up - trace.depth), downstream: Math.max(0, down - trace.depth) };
}

/** Whether an answer reaches its depth limit somewhere (so the path may go on). */
export function reachesDepth(answer: ColumnLineage, depth: number): boolean {
  return answer.nodes.some((n) => n.depth >= depth);
}
