// The Lineage tab's time control (issue 40): the graph now (the default), as
// of an instant, or what the runs of a window saw ("seen during"), and the
// changes since an earlier instant. All of it lives in the URL (history/time.ts).

import { exactTime } from "../../format";
import { fromLocalInput, toLocalInput, windowPatch, type TimeView, type WindowPreset } from "../../history/time";
import type { Navigate } from "../../route";

export function TimeControl({ time, navigate }: { time: TimeView; navigate: Navigate }) {
  const setWindow = (value: string) => {
    const preset = value === "24h" || value === "7d" || value === "custom" ? (value as WindowPreset) : null;
    navigate(windowPatch(preset, Date.now(), time.since ?? undefined, time.until ?? undefined), { push: true });
  };
  return (
    <div className="time-control" role="group" aria-label="Time">
      <label className="field">
        <span>As of</span>
        <input
          type="datetime-local"
          step="1"
          value={toLocalInput(time.asOf)}
          title={exactTime(time.asOf)}
          disabled={time.window !== null}
          onChange={(e) => navigate({ as_of: fromLocalInput(e.target.value) }, { push: true })}
          aria-label="As of (empty: now)"
          data-testid="as-of-input"
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
          <input
            type="datetime-local"
            step="1"
            value={toLocalInput(time.since)}
            title={exactTime(time.since)}
            aria-invalid={time.reversed || undefined}
            onChange={(e) => navigate({ seen_since: fromLocalInput(e.target.value) }, { push: true })}
            aria-label="Seen since"
          />
          <input
            type="datetime-local"
            step="1"
            value={toLocalInput(time.until)}
            title={exactTime(time.until)}
            aria-invalid={time.reversed || undefined}
            onChange={(e) => navigate({ seen_until: fromLocalInput(e.target.value) }, { push: true })}
            aria-label="Seen until (empty: now)"
          />
        </>
      )}
      <label className="field">
        <span>Changes since</span>
        <input
          type="datetime-local"
          step="1"
          value={toLocalInput(time.changesSince)}
          title={exactTime(time.changesSince)}
          disabled={time.window !== null}
          onChange={(e) => navigate({ changes_since: fromLocalInput(e.target.value) }, { push: true })}
          aria-label="Changes since (empty: no comparison)"
          data-testid="changes-since-input"
        />
      </label>
    </div>
  );
}
