// The Lineage tab's time control (issue 40): the graph now (the default), as
// of an instant, or what the runs of a window saw ("seen during"), and the
// changes since an earlier instant. All of it lives in the URL (history/time.ts),
// as exact instants; each time is one text field (InstantField: one Tab stop).

import { InstantField } from "../../components/InstantField";
import { exactInstant, parseInstant } from "../../history/instant";
import { fromLocalInput, toLocalInput, windowPatch, type TimeView, type WindowPreset } from "../../history/time";
import type { Navigate } from "../../route";

/** How a field shows the URL's instant: local time to the second, or exactly when finer. */
export function shownInstant(iso: string | null): string | undefined {
  if (!iso) return undefined;
  const at = parseInstant(iso);
  return at && at.ms % 1000 === 0 && at.us === 0 ? toLocalInput(iso) : iso;
}

/** The URL's instant for what a field took: a local time, or an instant with its offset. */
export function typedInstant(typed: string | null): string | null {
  if (!typed) return null;
  return /(?:z|[+-]\d\d(?::?\d\d)?)$/i.test(typed) ? exactInstant(typed) : fromLocalInput(typed);
}

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
          onChange={(typed) => navigate({ changes_since: typedInstant(typed) }, { push: true })}
          testId="changes-since-input"
        />
      </label>
    </div>
  );
}
