// Lighting a node's whole upstream and downstream path (see highlight.ts):
// the hovered node's, or else the selected node's.

import { useCallback, useEffect, useRef } from "react";
import { setLit, setSelected } from "./highlight";
import { connectedPath, type LGraph } from "./model";

/** Returns `hover`: a node id when the pointer enters a node, null when it leaves. */
export function usePathLight(graph: LGraph, selected: string | null): (id: string | null) => void {
  const hovering = useRef<string | null>(null);
  const lightSelection = useCallback(() => {
    if (selected && graph.byId.has(selected)) {
      const path = connectedPath(graph, selected);
      setLit(path.nodes, path.edges);
    } else setLit(null, null);
  }, [graph, selected]);

  useEffect(() => {
    setSelected(selected);
    if (!hovering.current) lightSelection();
  }, [selected, lightSelection]);
  useEffect(() => () => setLit(null, null), []);

  return useCallback(
    (id: string | null) => {
      if (hovering.current === id) return;
      hovering.current = id;
      if (id) {
        const path = connectedPath(graph, id);
        setLit(path.nodes, path.edges);
      } else lightSelection();
    },
    [graph, lightSelection],
  );
}
