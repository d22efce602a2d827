// Keeping the keyboard's place: what Enter (or a click) opened takes the
// focus once it is drawn, so the focus never drops to the page's <body>
// (the column view's heading after "Trace conv_rate", the run opened in its
// job's details after a row of the Runs tab). An element that is not a stop
// of the Tab key gets tabindex=-1: it takes the focus without becoming one.

const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";
const PATIENCE_MS = 10_000;

let pending: number | null = null;

/** Focus the first element matching `selector` as soon as it is on the page (within 10 s). */
export function focusWhenShown(selector: string): void {
  if (pending !== null) window.clearTimeout(pending);
  const opener = document.activeElement;
  const start = performance.now();
  const tick = () => {
    pending = null;
    const target = document.querySelector(selector);
    if (target instanceof HTMLElement) {
      if (!target.matches(FOCUSABLE)) target.tabIndex = -1;
      target.focus();
      return;
    }
    // Keep waiting while the focus is still where it was (or lost): never take it back from
    // something the user went to meanwhile.
    const active = document.activeElement;
    const unmoved = active === null || active === document.body || active === opener;
    if (unmoved && performance.now() - start < PATIENCE_MS) pending = window.setTimeout(tick, 50);
  };
  pending = window.setTimeout(tick, 0);
}

/** A CSS attribute selector's value, quoted. */
export function attr(value: string): string {
  return `"${CSS.escape(value)}"`;
}
