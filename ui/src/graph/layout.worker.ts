// The layout worker: positions nodes off the main thread, so the page stays
// responsive while a large graph is laid out, with our layered layout
// (layered.ts: linear per sweep, a few milliseconds for the quickstart, well
// under a second for 5,000 nodes).

import { layeredLayout, type LayoutEdge, type LayoutNode, type Point } from "./layered";

export interface LayoutRequest {
  requestId: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  /** The screen the graph is shown on: a long pipeline is folded into rows to fit it (layered.ts). */
  view?: { width: number; height: number };
}

export interface LayoutResponse {
  requestId: number;
  positions: Record<string, Point>;
  /** The path of each edge that crosses layers, by edge id, around the nodes. */
  routes: Record<string, Point[]>;
  ms: number;
  error?: string;
}

function handle(request: LayoutRequest): LayoutResponse {
  const started = performance.now();
  const laid = layeredLayout(request.nodes, request.edges, request.view ? { view: request.view } : {});
  return {
    requestId: request.requestId,
    positions: Object.fromEntries(laid.positions),
    routes: Object.fromEntries(laid.routes),
    ms: performance.now() - started,
  };
}

self.addEventListener("message", (event: MessageEvent) => {
  const request = event.data as LayoutRequest;
  if (!request || typeof request.requestId !== "number") return;
  let response: LayoutResponse;
  try {
    response = handle(request);
  } catch (err) {
    response = { requestId: request.requestId, positions: {}, routes: {}, ms: 0, error: String(err) };
  }
  self.postMessage(response);
});
