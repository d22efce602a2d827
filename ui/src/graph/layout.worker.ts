// The layout worker: positions nodes off the main thread, so the page stays
// responsive while a large graph is laid out. Small graphs use ELK's layered
// algorithm; large ones our linear layered layout (ELK takes seconds there).
//
// Note: once loaded, elk.bundled sets self.onmessage for ELK's own protocol
// (messages with a "cmd"); ours carry none, and we listen with addEventListener.

import type ElkConstructor from "elkjs/lib/elk.bundled.js";
import { layeredLayout, type LayoutEdge, type LayoutNode, type Point } from "./layered";

export interface LayoutRequest {
  requestId: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  engine: "auto" | "elk" | "layered";
}

export interface LayoutResponse {
  requestId: number;
  positions: Record<string, Point>;
  engine: "elk" | "layered";
  ms: number;
  error?: string;
}

/** Above this many nodes (or edges x 2) ELK is too slow for an interactive page. */
export const ELK_MAX_NODES = 250;

// ELK is 1.4 MB of JavaScript: loaded on the first graph small enough for it.
let elk: Promise<InstanceType<typeof ElkConstructor>> | null = null;
function getElk(): Promise<InstanceType<typeof ElkConstructor>> {
  elk ??= import("elkjs/lib/elk.bundled.js").then((module) => new module.default());
  return elk;
}

const ELK_OPTIONS: Record<string, string> = {
  "elk.algorithm": "layered",
  "elk.direction": "RIGHT",
  "elk.spacing.nodeNode": "20",
  "elk.layered.spacing.nodeNodeBetweenLayers": "60",
  "elk.spacing.componentComponent": "60",
  "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.separateConnectedComponents": "true",
};

async function withElk(nodes: LayoutNode[], edges: LayoutEdge[]): Promise<Record<string, Point>> {
  const ids = new Set(nodes.map((n) => n.id));
  const graph = await (await getElk()).layout({
    id: "root",
    layoutOptions: ELK_OPTIONS,
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: edges
      .filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target)
      .map((e, i) => ({ id: `e${i}`, sources: [e.source], targets: [e.target] })),
  });
  const positions: Record<string, Point> = {};
  for (const child of graph.children ?? []) positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  return positions;
}

async function handle(request: LayoutRequest): Promise<LayoutResponse> {
  const started = performance.now();
  const useElk =
    request.engine === "elk" ||
    (request.engine === "auto" &&
      request.nodes.length <= ELK_MAX_NODES &&
      request.edges.length <= ELK_MAX_NODES * 2);
  if (useElk) {
    try {
      const positions = await withElk(request.nodes, request.edges);
      return { requestId: request.requestId, positions, engine: "elk", ms: performance.now() - started };
    } catch {
      // fall through to the layered layout
    }
  }
  const positions = Object.fromEntries(layeredLayout(request.nodes, request.edges));
  return { requestId: request.requestId, positions, engine: "layered", ms: performance.now() - started };
}

self.addEventListener("message", (event: MessageEvent) => {
  const request = event.data as LayoutRequest;
  if (!request || typeof request.requestId !== "number") return;
  handle(request).then(
    (response) => self.postMessage(response),
    (err: unknown) =>
      self.postMessage({
        requestId: request.requestId,
        positions: {},
        engine: "layered",
        ms: 0,
        error: String(err),
      } satisfies LayoutResponse),
  );
});
