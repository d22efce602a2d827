// The keyboard on the graph. React Flow makes each drawn node a stop of the
// Tab key (and pans to the one focused); here Enter or Space opens the
// focused node as a click does, and again on the node open goes into its
// details (the panel comes after every node in the Tab order: on a large
// graph, hundreds of stops away); focusing a node lights its path as
// hovering does. Nodes say what they are to screen readers (nodeAriaLabel).
// A painted graph (more than BIG_GRAPH nodes) has no DOM nodes: there the
// search box is the keyboard's way to a node.

import type { AriaLabelConfig } from "@xyflow/react";
import { useMemo, type FocusEvent, type KeyboardEvent } from "react";
import { focusWhenShown } from "../focus";
import { HEALTH_MARKS, markedHealth } from "./healthOverlay";
import { KIND_STYLES } from "./kinds";
import { changeText, type LNode } from "./model";

const HOW = "Press Enter or Space to open its details, again to go into them; Tab moves to the next node.";
const ARIA: Partial<AriaLabelConfig> = {
  "node.a11yDescription.default": HOW,
  "node.a11yDescription.keyboardDisabled": HOW,
};

/**
 * What a screen reader says of a node: its kind, name, namespace, latest run,
 * health (as its glyph says it: at risk, stale; a failed job's latest run
 * already says failed) and change.
 */
export function nodeAriaLabel(node: LNode): string {
  const parts = [`${KIND_STYLES[node.kind].label} ${node.label}`];
  if (node.sublabel) parts.push(node.sublabel);
  if (node.state) parts.push(`latest run ${node.state}`);
  const health = markedHealth(node);
  if (health && !(health === "failed" && node.state === "failed")) parts.push(HEALTH_MARKS[health].label);
  const mark = changeText(node);
  if (mark) parts.push(mark.words);
  return parts.join(", ");
}

/** The id of the React Flow node an event is on (the node itself, not something inside it). */
function nodeId(target: EventTarget): string | null {
  return target instanceof HTMLElement && target.classList.contains("react-flow__node") ? (target.dataset.id ?? null) : null;
}

/** The details panel's heading: where Enter on the node already open takes the focus. */
const DETAILS = '[data-testid="details-panel"] .panel-title';

/** Props for the canvas's wrapper (`wrapper`) and for <ReactFlow> (`flow`); `selected`: the node open. */
export function useNodeKeys(onSelect: (id: string) => void, hover: (id: string | null) => void, selected: string | null) {
  return useMemo(
    () => ({
      wrapper: {
        onKeyDown: (event: KeyboardEvent<HTMLDivElement>) => {
          const id = nodeId(event.target);
          if (id && (event.key === "Enter" || event.key === " ")) {
            event.preventDefault();
            if (id === selected) focusWhenShown(DETAILS);
            else onSelect(id);
          }
        },
        onFocus: (event: FocusEvent<HTMLDivElement>) => {
          const id = nodeId(event.target);
          if (id) hover(id);
        },
        onBlur: (event: FocusEvent<HTMLDivElement>) => {
          if (nodeId(event.target)) hover(null);
        },
      },
      flow: { ariaLabelConfig: ARIA },
    }),
    [onSelect, hover, selected],
  );
}
