// Laying out a graph in the layout worker (or, where workers fail, inline).

import { layeredLayout, type LayoutEdge, type LayoutNode, type Point } from "./layered";
import type { LayoutRequest, LayoutResponse, WarmRequest } from "./layout.worker";

export interface LayoutResult {
  positions: Map<string, Point>;
  /** Edge paths around the nodes, by edge id, when the engine routes them (ELK). */
  routes: Map<string, Point[]>;
  engine: "elk" | "layered";
  ms: number;
}

let worker: Worker | null = null;
let nextId = 1;
const pending = new Map<number, (response: LayoutResponse) => void>();

function getWorker(): Worker | null {
  if (worker) return worker;
  try {
    worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module" });
    worker.addEventListener("message", (event: MessageEvent<LayoutResponse>) => {
      const resolve = pending.get(event.data.requestId);
      if (resolve) {
        pending.delete(event.data.requestId);
        resolve(event.data);
      }
    });
    worker.addEventListener("error", () => {
      for (const [id, resolve] of pending) {
        resolve({ requestId: id, positions: {}, routes: {}, engine: "layered", ms: 0, error: "worker failed" });
      }
      pending.clear();
      worker = null;
    });
  } catch {
    worker = null;
  }
  return worker;
}

function inline(nodes: LayoutNode[], edges: LayoutEdge[]): LayoutResult {
  const started = performance.now();
  return {
    positions: layeredLayout(nodes, edges),
    routes: new Map(),
    engine: "layered",
    ms: performance.now() - started,
  };
}

/**
 * Starts the layout worker and has it load ELK (1.4 MB) while the page
 * fetches its first graph, so a small graph does not wait for it; the page
 * draws before, as the worker loads apart from it.
 */
export function prepareLayout(): void {
  const warm: WarmRequest = { warm: true };
  getWorker()?.postMessage(warm);
}

export function layout(
  nodes: LayoutNode[],
  edges: LayoutEdge[],
  engine: LayoutRequest["engine"] = "auto",
): Promise<LayoutResult> {
  const w = getWorker();
  if (!w) return Promise.resolve(inline(nodes, edges));
  const requestId = nextId++;
  return new Promise((resolve) => {
    pending.set(requestId, (response) => {
      if (response.error) resolve(inline(nodes, edges));
      else
        resolve({
          positions: new Map(Object.entries(response.positions)),
          routes: new Map(Object.entries(response.routes)),
          engine: response.engine,
          ms: response.ms,
        });
    });
    const request: LayoutRequest = { requestId, nodes, edges, engine };
    w.postMessage(request);
  });
}
