// A fast layered (Sugiyama-style) layout, left to right, for every graph: a
// few milliseconds for tens of nodes, under a second for thousands, as each
// sweep is linear:
//   1. cycles are broken by reversing the back edges of a depth-first search;
//   2. each node gets the layer after its furthest predecessor, and a source
//      is then moved right, next to the first layer that reads it;
//   3. a few barycenter sweeps order the nodes of each layer to cut crossings;
//   4. vertical positions: each layer is placed as close to the mean of its
//      neighbours as the spacing allows (pool-adjacent-violators regression);
//   5. connected components are laid out alone and packed on shelves.
// An edge across more than one layer gets a dummy node in each layer it
// crosses (within a budget), so steps 3 and 4 keep a lane free for it, and
// its route (the dummies' places) goes around the nodes instead of through.

export interface LayoutNode {
  id: string;
  width: number;
  height: number;
}

export interface LayoutEdge {
  id?: string;
  source: string;
  target: string;
}

export interface Point {
  x: number;
  y: number;
}

export interface LayoutOptions {
  rankGap: number;
  nodeGap: number;
  componentGap: number;
  sweeps: number;
}

// Components (separate pipelines) are further apart than any two nodes of one.
const DEFAULTS: LayoutOptions = { rankGap: 60, nodeGap: 20, componentGap: 160, sweeps: 8 };

interface Component {
  nodes: number[];
  positions: Map<number, Point>;
  /** Routes of long edges, by the edge's "source>target" (global indices). */
  routes: Map<string, Point[]>;
  width: number;
  height: number;
}

export interface Layered {
  positions: Map<string, Point>;
  /** The path of each edge that crosses layers, by edge id (others go straight to the next layer). */
  routes: Map<string, Point[]>;
}

/** The height of a long edge's lane in a layer it crosses. */
const DUMMY_HEIGHT = 10;
/** The most lanes a component gets: beyond, a huge graph grows far taller than it is wide. */
const MAX_LANES = 1000;

export function layeredLayout(
  nodes: LayoutNode[],
  edges: LayoutEdge[],
  options: Partial<LayoutOptions> = {},
): Layered {
  const opts = { ...DEFAULTS, ...options };
  const index = new Map<string, number>();
  nodes.forEach((node, i) => index.set(node.id, i));
  const n = nodes.length;
  const out: number[][] = Array.from({ length: n }, () => []);
  const edgeIds = new Map<string, string>();
  edges.forEach((edge, i) => {
    const s = index.get(edge.source);
    const t = index.get(edge.target);
    if (s === undefined || t === undefined || s === t) return;
    const key = `${s}>${t}`;
    if (edgeIds.has(key)) return;
    edgeIds.set(key, edge.id ?? `e${i}`);
    out[s].push(t);
  });
  const components = connectedComponents(n, out).map((members) =>
    layoutComponent(members, nodes, out, opts),
  );
  return pack(components, nodes, edgeIds, opts);
}

function connectedComponents(n: number, out: number[][]): number[][] {
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  out.forEach((targets, s) => {
    for (const t of targets) {
      const a = find(s);
      const b = find(t);
      if (a !== b) parent[a] = b;
    }
  });
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = find(i);
    const list = groups.get(root);
    if (list) list.push(i);
    else groups.set(root, [i]);
  }
  return [...groups.values()];
}

function layoutComponent(
  members: number[],
  nodes: LayoutNode[],
  allOut: number[][],
  opts: LayoutOptions,
): Component {
  const local = new Map<number, number>();
  members.forEach((g, i) => local.set(g, i));
  const k = members.length;
  const out: number[][] = Array.from({ length: k }, () => []);
  members.forEach((g, i) => {
    for (const t of allOut[g]) {
      const j = local.get(t);
      if (j !== undefined) out[i].push(j);
    }
  });
  const dag = breakCycles(k, out);
  const inn: number[][] = Array.from({ length: k }, () => []);
  dag.forEach((targets, s) => targets.forEach((t) => inn[t].push(s)));
  const layer = assignLayers(k, dag, inn);

  // Long edges: a dummy per layer crossed, shortest edges first, within a
  // budget (a few long edges of a huge graph can cross hundreds of layers).
  const heights = members.map((g) => nodes[g].height);
  const widths = members.map((g) => nodes[g].width);
  const chains: { s: number; t: number; dummies: number[] }[] = [];
  const long: [number, number][] = [];
  dag.forEach((targets, s) => targets.forEach((t) => layer[t] - layer[s] > 1 && long.push([s, t])));
  long.sort((a, b) => layer[a[1]] - layer[a[0]] - (layer[b[1]] - layer[b[0]]));
  let budget = Math.min(2 * k + 200, MAX_LANES);
  for (const [s, t] of long) {
    const span = layer[t] - layer[s] - 1;
    if (span > budget) break;
    budget -= span;
    const dummies: number[] = [];
    let from = s;
    for (let l = layer[s] + 1; l < layer[t]; l++) {
      const d = dag.length;
      dag.push([]);
      inn.push([from]);
      layer.push(l);
      heights.push(DUMMY_HEIGHT);
      widths.push(0);
      dag[from].push(d);
      dummies.push(d);
      from = d;
    }
    dag[from].push(t);
    inn[t].push(from);
    dag[s].splice(dag[s].indexOf(t), 1);
    inn[t].splice(inn[t].indexOf(s), 1);
    chains.push({ s, t, dummies });
  }
  const all = dag.length; // real nodes, then dummies

  // Layers, first filled in depth-first order so chains start out together.
  const layerCount = Math.max(0, ...layer) + 1;
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  const visited = new Uint8Array(all);
  const order: number[] = [];
  const roots = [...Array(k).keys()].filter((v) => inn[v].length === 0);
  for (const root of roots.length ? roots : [0]) {
    const stack = [root];
    while (stack.length) {
      const v = stack.pop() as number;
      if (visited[v]) continue;
      visited[v] = 1;
      order.push(v);
      for (let i = dag[v].length - 1; i >= 0; i--) if (!visited[dag[v][i]]) stack.push(dag[v][i]);
    }
  }
  for (let v = 0; v < all; v++) if (!visited[v]) order.push(v);
  for (const v of order) layers[layer[v]].push(v);

  const pos = new Float64Array(all); // position within the layer, normalised to [0, 1]
  const setPositions = (list: number[]) =>
    list.forEach((v, i) => (pos[v] = list.length > 1 ? i / (list.length - 1) : 0.5));
  layers.forEach(setPositions);
  for (let sweep = 0; sweep < opts.sweeps; sweep++) {
    const down = sweep % 2 === 0;
    const sequence = down ? layers : [...layers].reverse();
    for (const list of sequence) {
      const keys = new Map<number, number>();
      for (const v of list) {
        const neighbours = down ? inn[v] : dag[v];
        if (neighbours.length === 0) {
          keys.set(v, pos[v]);
          continue;
        }
        let sum = 0;
        for (const u of neighbours) sum += pos[u];
        keys.set(v, sum / neighbours.length);
      }
      list.sort((a, b) => (keys.get(a) as number) - (keys.get(b) as number) || pos[a] - pos[b]);
      setPositions(list);
    }
  }

  // Vertical coordinates.
  const y = new Float64Array(all);
  layers.forEach((list) => {
    let at = 0;
    for (const v of list) {
      y[v] = at;
      at += heights[v] + opts.nodeGap;
    }
  });
  const center = (v: number) => y[v] + heights[v] / 2;
  for (let round = 0; round < 6; round++) {
    const sequence = round % 2 === 0 ? layers : [...layers].reverse();
    for (const list of sequence) {
      const desired = list.map((v) => {
        const neighbours = [...inn[v], ...dag[v]];
        if (neighbours.length === 0) return center(v);
        let sum = 0;
        for (const u of neighbours) sum += center(u);
        return sum / neighbours.length;
      });
      place(list, desired, heights, opts.nodeGap, y);
    }
  }

  // Column x by layer, with each layer as wide as its widest node.
  const layerX: number[] = [];
  const layerWidth: number[] = [];
  let x = 0;
  for (const list of layers) {
    layerX.push(x);
    layerWidth.push(Math.max(0, ...list.map((v) => widths[v])));
    x += layerWidth[layerWidth.length - 1] + opts.rankGap;
  }
  let minY = Infinity;
  let maxY = -Infinity;
  for (let v = 0; v < all; v++) {
    minY = Math.min(minY, y[v]);
    maxY = Math.max(maxY, y[v] + heights[v]);
  }
  const positions = new Map<number, Point>();
  members.forEach((g, v) => positions.set(g, { x: layerX[layer[v]], y: y[v] - minY }));
  // A long edge: from its source's right side, straight through each layer
  // it crosses at its lane, to its target's left side.
  const routes = new Map<string, Point[]>();
  const middle = (v: number) => y[v] - minY + heights[v] / 2;
  for (const { s, t, dummies } of chains) {
    const points: Point[] = [{ x: layerX[layer[s]] + widths[s], y: middle(s) }];
    for (const d of dummies) {
      points.push({ x: layerX[layer[d]], y: middle(d) });
      points.push({ x: layerX[layer[d]] + layerWidth[layer[d]], y: middle(d) });
    }
    points.push({ x: layerX[layer[t]], y: middle(t) });
    routes.set(`${members[s]}>${members[t]}`, points);
  }
  return {
    nodes: members,
    positions,
    routes,
    width: Math.max(0, x - opts.rankGap),
    height: all ? maxY - minY : 0,
  };
}

/** Reverse the back edges of a depth-first search, so the graph has no cycle. */
function breakCycles(k: number, out: number[][]): number[][] {
  const state = new Uint8Array(k); // 0 new, 1 on the stack, 2 done
  const dag: number[][] = Array.from({ length: k }, () => []);
  for (let start = 0; start < k; start++) {
    if (state[start]) continue;
    const stack: [number, number][] = [[start, 0]];
    state[start] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [v, i] = top;
      if (i < out[v].length) {
        top[1] = i + 1;
        const t = out[v][i];
        if (state[t] === 1) dag[t].push(v);
        else {
          dag[v].push(t);
          if (state[t] === 0) {
            state[t] = 1;
            stack.push([t, 0]);
          }
        }
      } else {
        state[v] = 2;
        stack.pop();
      }
    }
  }
  return dag;
}

function assignLayers(k: number, dag: number[][], inn: number[][]): number[] {
  const indegree = inn.map((list) => list.length);
  const queue: number[] = [];
  for (let v = 0; v < k; v++) if (indegree[v] === 0) queue.push(v);
  const layer = new Array<number>(k).fill(0);
  const topo: number[] = [];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head];
    topo.push(v);
    for (const t of dag[v]) {
      layer[t] = Math.max(layer[t], layer[v] + 1);
      if (--indegree[t] === 0) queue.push(t);
    }
  }
  // Sources sit just before the first layer that reads them.
  for (let i = topo.length - 1; i >= 0; i--) {
    const v = topo[i];
    if (inn[v].length === 0 && dag[v].length > 0) {
      layer[v] = Math.min(...dag[v].map((t) => layer[t])) - 1;
    }
  }
  const min = Math.min(0, ...layer);
  return layer.map((l) => l - min);
}

/**
 * Place one layer's nodes, in order, at least `gap` apart, as close as possible
 * (least squares) to their desired centres: isotonic regression by pooling.
 */
function place(
  list: number[],
  desired: number[],
  heights: number[],
  gap: number,
  y: Float64Array,
): void {
  // Offsets that turn "top of node i" into a non-decreasing sequence.
  const offset: number[] = [];
  let acc = 0;
  for (const v of list) {
    offset.push(acc);
    acc += heights[v] + gap;
  }
  const target = list.map((v, i) => desired[i] - heights[v] / 2 - offset[i]);
  const blockValue: number[] = [];
  const blockSize: number[] = [];
  for (const value of target) {
    blockValue.push(value);
    blockSize.push(1);
    while (blockValue.length > 1 && blockValue[blockValue.length - 2] > blockValue[blockValue.length - 1]) {
      const size = blockSize[blockSize.length - 2] + blockSize[blockSize.length - 1];
      const merged =
        (blockValue[blockValue.length - 2] * blockSize[blockSize.length - 2] +
          blockValue[blockValue.length - 1] * blockSize[blockSize.length - 1]) /
        size;
      blockValue.splice(-2, 2, merged);
      blockSize.splice(-2, 2, size);
    }
  }
  let i = 0;
  blockValue.forEach((value, b) => {
    for (let j = 0; j < blockSize[b]; j++, i++) y[list[i]] = value + offset[i];
  });
}

/** Shelf-pack components: biggest first, rows about as wide as the largest one. */
function pack(
  components: Component[],
  nodes: LayoutNode[],
  edgeIds: Map<string, string>,
  opts: LayoutOptions,
): Layered {
  components.sort((a, b) => b.nodes.length - a.nodes.length || b.height - a.height);
  const area = components.reduce((sum, c) => sum + (c.width + opts.componentGap) * (c.height + opts.componentGap), 0);
  const rowWidth = Math.max(Math.sqrt(area) * 1.6, ...components.map((c) => c.width));
  const result = new Map<string, Point>();
  const routes = new Map<string, Point[]>();
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  for (const component of components) {
    if (x > 0 && x + component.width > rowWidth) {
      x = 0;
      y += rowHeight + opts.componentGap;
      rowHeight = 0;
    }
    for (const [g, p] of component.positions) result.set(nodes[g].id, { x: p.x + x, y: p.y + y });
    for (const [key, points] of component.routes) {
      const moved = points.map((p) => ({ x: p.x + x, y: p.y + y }));
      const id = edgeIds.get(key);
      if (id !== undefined) routes.set(id, moved);
      else {
        // An edge the layout turned around to break a cycle: its route, backwards.
        const [s, t] = key.split(">");
        const back = edgeIds.get(`${t}>${s}`);
        if (back !== undefined) routes.set(back, moved.reverse());
      }
    }
    x += component.width + opts.componentGap;
    rowHeight = Math.max(rowHeight, component.height);
  }
  return { positions: result, routes };
}
