// A table row that opens something (a job's details, an event's JSON, a
// run): a click anywhere on it opens it, and so does Enter or Space when it
// has the keyboard focus (each such row is a stop of the Tab key). Buttons
// and links inside the row keep doing their own thing.

import type { HTMLAttributes, KeyboardEvent, MouseEvent } from "react";

const CONTROLS = "a, button, input, select, textarea, summary";

export function openableRow(open: () => void): HTMLAttributes<HTMLTableRowElement> {
  return {
    tabIndex: 0,
    onClick: (event: MouseEvent<HTMLTableRowElement>) => {
      const control = (event.target as Element).closest(CONTROLS);
      if (control && event.currentTarget.contains(control)) return;
      open();
    },
    onKeyDown: (event: KeyboardEvent<HTMLTableRowElement>) => {
      if (event.target !== event.currentTarget) return;
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        open();
      }
    },
  };
}
