// A health state's glyph as an inline SVG (the same shapes paintHealth draws
// on the painted graph): on a DOM node, in the legend, in the Health tab.

import "./health.css";
import { HEALTH_MARKS, type Marked } from "./healthOverlay";

export function HealthGlyph({ state, size = 16 }: { state: Marked; size?: number }) {
  const color = HEALTH_MARKS[state].color;
  return (
    <svg className="health-glyph" width={size} height={size} viewBox="-10 -10 20 20" aria-hidden focusable="false">
      {state === "at_risk" ? (
        <polygon points="0,-8.5 9,7 -9,7" fill="#fff" stroke={color} strokeWidth="2" strokeLinejoin="round" />
      ) : (
        <circle r="8.5" fill="#fff" stroke={color} strokeWidth="2" />
      )}
      {state === "failed" && <path d="M -4 -4 L 4 4 M 4 -4 L -4 4" stroke={color} strokeWidth="2.2" strokeLinecap="round" />}
      {state === "stale" && <path d="M 0 -5 L 0 0 L 4 2.5" stroke={color} strokeWidth="2" fill="none" strokeLinecap="round" />}
      {state === "at_risk" && <path d="M 0 -3 L 0 2 M 0 4.6 L 0 4.8" stroke={color} strokeWidth="2" strokeLinecap="round" />}
    </svg>
  );
}

/**
 * A node's health mark: its glyph with the state in words for screen readers
 * and on hover. `zoomedOut`: the node's mark when it shows its name alone (in
 * its top right corner), else the one in its top row.
 */
export function HealthMark({ state, zoomedOut = false }: { state: Marked; zoomedOut?: boolean }) {
  const style = HEALTH_MARKS[state];
  return (
    <span className={`health-mark health-mark-${state}${zoomedOut ? " health-mark-mid" : ""}`} data-health={state} role="img" aria-label={style.label} title={`${style.label}: ${style.hint}`}>
      <HealthGlyph state={state} />
    </span>
  );
}
