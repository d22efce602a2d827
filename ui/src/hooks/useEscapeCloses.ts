// Escape closes what is open, innermost first: the details panel, then an
// event's JSON, then the column view. The focus goes back to what opened it
// (the graph node or the table row) when that is on the page. A key press in
// a text field, or one a control already used (the search's results, the key
// form), is left alone.

import { useEffect, useRef } from "react";
import { attr, focusWhenShown } from "../focus";
import type { Navigate, Patch, Route } from "../route";
import { refPatch } from "../selection";
import { traceOf, tracePatch } from "../views/columns/trace";
import { nodeId } from "../nodeId";

const TYPING = "input, textarea, select, [contenteditable]";

/** What Escape closes on `route`: the route change, and where the focus goes then. */
export function escapeStep(route: Route): { patch: Patch; push: boolean; focus: string | null } | null {
  if (route.node) {
    const id = nodeId(route.node_type ?? "", route.node_ns ?? "", route.node);
    return { patch: refPatch(null), push: false, focus: `tr[data-node-id=${attr(id)}], .react-flow__node[data-id=${attr(id)}]` };
  }
  if (route.ev) return { patch: { ev: null }, push: false, focus: `tr.event-row[data-event-id=${attr(route.ev)}]` };
  if ((route.tab ?? "lineage") === "lineage" && route.view !== "feast" && traceOf(route)) {
    return { patch: tracePatch(null), push: true, focus: null };
  }
  return null;
}

export function useEscapeCloses(route: Route, navigate: Navigate): void {
  const current = useRef(route);
  current.current = route;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      const target = event.target as Element | null;
      if (target?.closest?.(TYPING)) return;
      const step = escapeStep(current.current);
      if (!step) return;
      event.preventDefault();
      navigate(step.patch, { push: step.push });
      if (step.focus) focusWhenShown(step.focus);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [navigate]);
}
