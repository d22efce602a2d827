// The layout worker: positions nodes off the main thread, so the page stays
// responsive while a large graph is laid out. Small graphs use ELK's layered
// algorithm; large ones our linear layered layout (ELK takes seconds there).
//
// Note: once loaded, elk.bundled sets self.onmessage for ELK's own protocol
// (messages with a "cmd"); ours carry none, and we listen with addEventListener.

import type { ElkExtendedEdge } from "elkjs/lib/elk-api";
import type ElkConstructor from "elkjs/lib/elk.bundled.js";
import { layeredLayout, type LayoutEdge, type LayoutNode, type Point } from "./layered";

export interface LayoutRequest {
  requestId: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  engine: "auto" | "elk" | "layered";
}

/** Ask the worker to load ELK now, before any graph (sent when the page starts). */
export interface WarmRequest {
  warm: true;
}

export interface LayoutResponse {
  requestId: number;
  positions: Record<string, Point>;
  /** Each edge's path (by edge id) when the engine routes edges around nodes (ELK). */
  routes: Record<string, Point[]>;
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
  // Separate pipelines stay apart: the gap between them is wider than any inside one.
  "elk.spacing.componentComponent": "140",
  // Edges go around nodes, in the gaps between layers and nodes.
  "elk.edgeRouting": "ORTHOGONAL",
  "elk.layered.nodePlacement.strategy": "BRANDES_KOEPF",
  "elk.layered.considerModelOrder.strategy": "NODES_AND_EDGES",
  "elk.separateConnectedComponents": "true",
};

type Laid = Pick<LayoutResponse, "positions" | "routes">;

async function withElk(nodes: LayoutNode[], edges: LayoutEdge[]): Promise<Laid> {
  const ids = new Set(nodes.map((n) => n.id));
  const graph = await (await getElk()).layout({
    id: "root",
    layoutOptions: ELK_OPTIONS,
    children: nodes.map((n) => ({ id: n.id, width: n.width, height: n.height })),
    edges: edges
      .filter((e) => ids.has(e.source) && ids.has(e.target) && e.source !== e.target)
      .map((e, i) => ({ id: e.id ?? `e${i}`, sources: [e.source], targets: [e.target] })),
  });
  const positions: Record<string, Point> = {};
  for (const child of graph.children ?? []) positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  const routes: Record<string, Point[]> = {};
  for (const edge of (graph.edges ?? []) as ElkExtendedEdge[]) {
    const section = edge.sections?.[0];
    if (section) routes[edge.id] = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
  }
  return { positions, routes };
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
      const laid = await withElk(request.nodes, request.edges);
      return { requestId: request.requestId, ...laid, engine: "elk", ms: performance.now() - started };
    } catch {
      // fall through to the layered layout
    }
  }
  const positions = Object.fromEntries(layeredLayout(request.nodes, request.edges));
  return { requestId: request.requestId, positions, routes: {}, engine: "layered", ms: performance.now() - started };
}

self.addEventListener("message", (event: MessageEvent) => {
  if ((event.data as WarmRequest | null)?.warm === true) {
    getElk().catch(() => undefined); // a failure shows again, and falls back, on first use
    return;
  }
  const request = event.data as LayoutRequest;
  if (!request || typeof request.requestId !== "number") return;
  handle(request).then(
    (response) => self.postMessage(response),
    (err: unknown) =>
      self.postMessage({
        requestId: request.requestId,
        positions: {},
        routes: {},
        engine: "layered",
        ms: 0,
        error: String(err),
      } satisfies LayoutResponse),
  );
});
