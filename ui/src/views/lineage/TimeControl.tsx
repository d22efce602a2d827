// The Lineage tab's time control (issue 40): the graph now (the default), as
// of an instant, or what the runs of a window saw ("seen during"), and the
// changes since an earlier instant. All of it lives in the URL (history/time.ts),
// as exact instants; each time is one text field (InstantField: one Tab stop).

import { InstantField } from "../../components/InstantField";
import { shownInstant, typedInstant, windowPatch, type TimeView, type WindowPreset } from "../../history/time";
import type { Navigate } from "../../route";

/** The "As of" field, where the focus goes when a button that set or cleared the time is gone. */
export const AS_OF_FIELD = '[data-testid="as-of-input"]';

export function TimeControl({ time, navigate }: { time: TimeView; navigate: Navigate }) {
  const setWindow = (value: string) => {
    const preset = value === "24h" || value === "7d" || value === "custom" ? (value as WindowPreset) : null;
    navigate(windowPatch(preset, Date.now(), time.since ?? undefined, time.until ?? undefined), { push: true });
  };
  return (
    <div className="time-control" role="group" aria-label="Time">
      <label className="field">
        <span>As of</span>
        <InstantField
          label="As of (empty: now)"
          value={shownInstant(time.asOf)}
          disabled={time.window !== null}
          invalid={time.changesReversed}
          onChange={(typed) => navigate({ as_of: typedInstant(typed) }, { push: true })}
          testId="as-of-input"
        />
      </label>
      <label className="field">
        <span>Seen during</span>
        <select value={time.window ?? ""} onChange={(e) => setWindow(e.target.value)} aria-label="Seen during">
          <option value="">any time (current graph)</option>
          <option value="24h">last 24 h</option>
          <option value="7d">last 7 days</option>
          <option value="custom">custom…</option>
        </select>
      </label>
      {time.window === "custom" && (
        <>
          <InstantField
            label="Seen since"
            value={shownInstant(time.since)}
            invalid={time.reversed}
            onChange={(typed) => navigate({ seen_since: typedInstant(typed) }, { push: true })}
          />
          <InstantField
            label="Seen until (empty: now)"
            value={shownInstant(time.until)}
            invalid={time.reversed}
            onChange={(typed) => navigate({ seen_until: typedInstant(typed) }, { push: true })}
          />
        </>
      )}
      <label className="field">
        <span>Changes since</span>
        <InstantField
          label="Changes since (empty: no comparison)"
          value={shownInstant(time.changesSince)}
          disabled={time.window !== null}
          invalid={time.changesReversed}
          onChange={(typed) => navigate({ changes_since: typedInstant(typed) }, { push: true })}
          testId="changes-since-input"
        />
      </label>
    </div>
  );
}
