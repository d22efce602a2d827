// Which nodes and edges are lit (the hovered node's path, or the selection's).
//
// A tiny external store. Only lit elements carry a class; the canvas marks
// itself "data-lit" and CSS dims everything else, so hovering in a graph of
// thousands re-renders only the nodes and edges on the path.

import { useSyncExternalStore } from "react";

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

export function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getLit(): Readonly<State> {
  return state;
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

export function useNodeLit(id: string): boolean {
  return useSyncExternalStore(subscribe, () => state.nodes?.has(id) ?? false);
}

export function useEdgeLit(id: string): boolean {
  return useSyncExternalStore(subscribe, () => state.edges?.has(id) ?? false);
}

export function useAnyLit(): boolean {
  return useSyncExternalStore(subscribe, () => state.nodes !== null);
}

export function useIsSelected(id: string): boolean {
  return useSyncExternalStore(subscribe, () => state.selected === id);
}

/** The whole state, for the overview canvas (it redraws on any change). */
export function useLitState(): Readonly<State> {
  return useSyncExternalStore(subscribe, () => state);
}
