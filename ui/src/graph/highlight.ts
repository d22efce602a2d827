// Which nodes and edges are lit (the hovered node's path, or the selection).
//
// A tiny external store: each node and edge subscribes to its own state, so
// hovering in a graph of thousands re-renders only what changes.

import { useSyncExternalStore } from "react";

export type Lit = "none" | "on" | "dim";

interface State {
  nodes: Set<string> | null;
  edges: Set<string> | null;
  selected: string | null;
}

let state: State = { nodes: null, edges: null, selected: null };
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function setLit(nodes: Set<string> | null, edges: Set<string> | null): void {
  if (state.nodes === nodes && state.edges === edges) return;
  state = { ...state, nodes, edges };
  emit();
}

export function setSelected(id: string | null): void {
  if (state.selected === id) return;
  state = { ...state, selected: id };
  emit();
}

export function useNodeLit(id: string): Lit {
  return useSyncExternalStore(subscribe, () =>
    state.nodes === null ? "none" : state.nodes.has(id) ? "on" : "dim",
  );
}

export function useEdgeLit(id: string): Lit {
  return useSyncExternalStore(subscribe, () =>
    state.edges === null ? "none" : state.edges.has(id) ? "on" : "dim",
  );
}

export function useIsSelected(id: string): boolean {
  return useSyncExternalStore(subscribe, () => state.selected === id);
}
