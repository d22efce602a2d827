// A fast layered (Sugiyama-style) layout, left to right, for every graph: a
// few milliseconds for tens of nodes, under a second for thousands, as each
// sweep is linear:
//   1. cycles are broken by reversing the back edges of a depth-first search;
//   2. each node gets the layer after its furthest predecessor, and a source
//      is then moved right, next to the first layer that reads it;
//   3. a few barycenter sweeps order the nodes of each layer to cut crossings;
//   4. vertical positions: each layer is placed as close to the mean of its
//      neighbours as the spacing allows (pool-adjacent-violators regression);
//   5. a long pipeline is folded into rows (bands of consecutive layers, one
//      under the other) when that lets the view show it larger: each band is
//      as wide as the screen allows, and an edge from one band to the next
//      turns back along a lane of its own in the gap between them;
//   6. connected components are laid out alone and packed on shelves.
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
  /** The screen the graph is shown on (px): a pipeline is folded into rows to fit it larger. None: no folding. */
  view?: { width: number; height: number };
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

/** How far a folded edge's turn reaches beyond its ends, as drawn (elements.tsx, paint.ts). */
export const TURN = 24;
/** The height of a long edge's lane in a layer it crosses. */
const DUMMY_HEIGHT = 10;
/** The most lanes a component gets: beyond, a huge graph grows far taller than it is wide. */
const MAX_LANES = 1000;
/** Folding: at most this many rows; the gap between two rows, plus a lane per edge crossing it. */
const MAX_BANDS = 4;
const BAND_GAP = 56;
const WRAP_LANE = 8;
/** As the viewport fits a graph (viewport.ts): padding, and the largest zoom it opens at. */
const FIT_PADDING = 0.92;
const FIT_MAX_ZOOM = 1.1;

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
  const bands = chooseBands(layers, layerX, layerWidth, y, heights, dag, layer, opts);
  // Each band's layers move left to the band's start and down to its row.
  const bandOf = new Int32Array(layerCount);
  const shiftX: number[] = [];
  const shiftY: number[] = [];
  const laneY: number[] = []; // the first wrap lane under each band
  let top = 0;
  let width = 0;
  bands.forEach((band, b) => {
    for (let l = band.first; l <= band.last; l++) bandOf[l] = b;
    shiftX.push(-layerX[band.first]);
    shiftY.push(top - band.minY);
    width = Math.max(width, layerX[band.last] + layerWidth[band.last] - layerX[band.first]);
    top += band.maxY - band.minY;
    laneY.push(top + BAND_GAP / 2);
    top += BAND_GAP + band.lanes * WRAP_LANE;
  });
  const height = all ? top - BAND_GAP - bands[bands.length - 1].lanes * WRAP_LANE : 0;
  const X = (v: number, at: number) => at + shiftX[bandOf[layer[v]]];
  const Y = (v: number) => y[v] + heights[v] / 2 + shiftY[bandOf[layer[v]]];

  const positions = new Map<number, Point>();
  members.forEach((g, v) => positions.set(g, { x: X(v, layerX[layer[v]]), y: y[v] + shiftY[bandOf[layer[v]]] }));
  // A long edge: from its source's right side, straight through each layer
  // it crosses at its lane, to its target's left side; from one band to the
  // next, it turns back along a lane between the two.
  const nextLane = bands.map(() => 0);
  const routes = new Map<string, Point[]>();
  const wrap = (points: Point[], from: number, to: number) => {
    for (let b = bandOf[layer[from]]; b < bandOf[layer[to]]; b++) {
      const lane = laneY[b] + nextLane[b]++ * WRAP_LANE;
      const right = points[points.length - 1].x;
      points.push({ x: right, y: lane }, { x: shiftX[b + 1] + layerX[bands[b + 1].first], y: lane });
    }
  };
  const step = (points: Point[], from: number, to: number) => {
    if (bandOf[layer[from]] !== bandOf[layer[to]]) wrap(points, from, to);
  };
  for (const { s, t, dummies } of chains) {
    const points: Point[] = [{ x: X(s, layerX[layer[s]] + widths[s]), y: Y(s) }];
    let from = s;
    for (const d of dummies) {
      step(points, from, d);
      points.push({ x: X(d, layerX[layer[d]]), y: Y(d) });
      points.push({ x: X(d, layerX[layer[d]] + layerWidth[layer[d]]), y: Y(d) });
      from = d;
    }
    step(points, from, t);
    points.push({ x: X(t, layerX[layer[t]]), y: Y(t) });
    routes.set(`${members[s]}>${members[t]}`, points);
  }
  if (bands.length > 1) {
    // Edges between neighbouring layers of two bands (long ones have their chain).
    for (let v = 0; v < k; v++) {
      for (const t of dag[v]) {
        if (t >= k || bandOf[layer[v]] === bandOf[layer[t]]) continue;
        const points: Point[] = [{ x: X(v, layerX[layer[v]] + widths[v]), y: Y(v) }];
        wrap(points, v, t);
        points.push({ x: X(t, layerX[layer[t]]), y: Y(t) });
        routes.set(`${members[v]}>${members[t]}`, points);
      }
    }
  }
  return { nodes: members, positions, routes, width, height };
}

interface Band {
  first: number;
  last: number;
  minY: number;
  maxY: number;
  /** Edges from this band to the next ones, each with a lane under it. */
  lanes: number;
}

/**
 * The rows a component's layers are folded into: as many (1 to MAX_BANDS),
 * cut where, as shows it largest on `opts.view`.
 */
function chooseBands(
  layers: number[][],
  layerX: number[],
  layerWidth: number[],
  y: Float64Array,
  heights: number[],
  dag: number[][],
  layer: number[],
  opts: LayoutOptions,
): Band[] {
  const count = layers.length;
  const extent = (first: number, last: number) => {
    let minY = Infinity;
    let maxY = -Infinity;
    for (let l = first; l <= last; l++) {
      for (const v of layers[l]) {
        minY = Math.min(minY, y[v]);
        maxY = Math.max(maxY, y[v] + heights[v]);
      }
    }
    return Number.isFinite(minY) ? { minY, maxY } : { minY: 0, maxY: 0 };
  };
  /** The bands of layers ending at each cut (the last layer of each band but the last). */
  const bandsAt = (cuts: number[]): Band[] => {
    const bands: Band[] = [];
    let first = 0;
    for (const last of [...cuts, count - 1]) {
      bands.push({ first, last, ...extent(first, last), lanes: 0 });
      first = last + 1;
    }
    if (cuts.length) {
      const bandOf = new Int32Array(count);
      bands.forEach((band, b) => bandOf.fill(b, band.first, band.last + 1));
      dag.forEach((targets, v) => {
        for (const t of targets) for (let b = bandOf[layer[v]]; b < bandOf[layer[t]]; b++) bands[b].lanes++;
      });
    }
    return bands;
  };
  let best = bandsAt([]);
  const view = opts.view;
  if (!view || view.width <= 0 || view.height <= 0 || count < 4) return best;
  const zoomOf = (bands: Band[]) => {
    let width = 0;
    let height = 0;
    bands.forEach((band, b) => {
      width = Math.max(width, layerX[band.last] + layerWidth[band.last] - layerX[band.first]);
      height += band.maxY - band.minY + (b < bands.length - 1 ? BAND_GAP + band.lanes * WRAP_LANE : 0);
    });
    return Math.min(FIT_MAX_ZOOM, FIT_PADDING * Math.min(view.width / width, view.height / Math.max(1, height)));
  };
  // Edges crossing the cut after each layer: a fold there gives each a lane.
  const crossing = new Int32Array(count + 1);
  dag.forEach((targets, v) => {
    for (const t of targets) {
      crossing[layer[v]]++;
      crossing[layer[t]]--;
    }
  });
  for (let l = 1; l < count; l++) crossing[l] += crossing[l - 1];
  // Two rows: every cut is tried. More: cuts near equal shares of the
  // layers, where the fewest edges cross.
  const candidates: number[][] = [];
  for (let cut = 1; cut < count - 2; cut++) candidates.push([cut]);
  for (let n = 3; n <= Math.min(MAX_BANDS, Math.floor(count / 2)); n++) {
    const cuts: number[] = [];
    for (let b = 1; b < n; b++) {
      const ideal = Math.floor((b * count) / n) - 1;
      const lowest = Math.max(ideal - 2, (cuts[cuts.length - 1] ?? -1) + 2);
      let cut = Math.max(ideal, lowest);
      for (let l = lowest; l <= Math.min(ideal + 2, count - 3); l++) {
        const fewer = crossing[l] < crossing[cut];
        if (fewer || (crossing[l] === crossing[cut] && Math.abs(l - ideal) < Math.abs(cut - ideal))) cut = l;
      }
      cuts.push(cut);
    }
    candidates.push(cuts);
  }
  let bestZoom = zoomOf(best);
  const single = bestZoom;
  for (const cuts of candidates) {
    const bands = bandsAt(cuts);
    const zoom = zoomOf(bands);
    // A fold must show the graph clearly larger to be worth its turning edges.
    if (zoom > bestZoom && zoom > single * 1.15) {
      best = bands;
      bestZoom = zoom;
    }
  }
  return best;
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
