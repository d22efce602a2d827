// Laying out a graph in the layout worker (or, where workers fail, inline).

import { layeredLayout, type LayoutEdge, type LayoutNode, type Point } from "./layered";
import type { LayoutRequest, LayoutResponse } from "./layout.worker";

export interface LayoutResult {
  positions: Map<string, Point>;
  /** Paths of the edges that cross layers, by edge id, around the nodes. */
  routes: Map<string, Point[]>;
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
        resolve({ requestId: id, positions: {}, routes: {}, ms: 0, error: "worker failed" });
      }
      pending.clear();
      worker = null;
    });
  } catch {
    worker = null;
  }
  return worker;
}

type View = { width: number; height: number } | undefined;

function inline(nodes: LayoutNode[], edges: LayoutEdge[], view: View): LayoutResult {
  const started = performance.now();
  const laid = layeredLayout(nodes, edges, view ? { view } : {});
  return { ...laid, ms: performance.now() - started };
}

/** Starts the layout worker while the page fetches its first graph. */
export function prepareLayout(): void {
  getWorker();
}

/** Lays out a graph; with `view` (the canvas's size), a long pipeline is folded into rows to fit it. */
export function layout(nodes: LayoutNode[], edges: LayoutEdge[], view?: View): Promise<LayoutResult> {
  const w = getWorker();
  if (!w) return Promise.resolve(inline(nodes, edges, view));
  const requestId = nextId++;
  return new Promise((resolve) => {
    pending.set(requestId, (response) => {
      if (response.error) resolve(inline(nodes, edges, view));
      else
        resolve({
          positions: new Map(Object.entries(response.positions)),
          routes: new Map(Object.entries(response.routes)),
          ms: response.ms,
        });
    });
    const request: LayoutRequest = { requestId, nodes, edges, view };
    w.postMessage(request);
  });
}
