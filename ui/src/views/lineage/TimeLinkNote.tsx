// The note a link with a malformed time gets (as_of=garbage): which parameter,
// what it takes, and what the page shows instead (the URL now says so).

import { formatInstant } from "../../format";
import type { TimeView } from "../../history/time";
import type { TimeLinkNote as Note } from "../../hooks/useTimeLink";

/** What the Lineage tab shows for `time`, in words. */
export function describeTime(time: TimeView): string {
  let shown: string;
  if (time.window) {
    shown = `the lineage seen during ${formatInstant(time.since)} – ${time.until ? formatInstant(time.until) : "now"}`;
  } else if (time.asOf) shown = `the lineage as of ${formatInstant(time.asOf)}`;
  else shown = "the current graph";
  return time.changesSince ? `${shown}, with the changes since ${formatInstant(time.changesSince)}` : shown;
}

/** `shows`: what the page shows instead, in words (default: the Lineage tab's view, describeTime). */
export function TimeLinkNote({ note, time, shows }: { note: Note; time: TimeView; shows?: string }) {
  return (
    <div className="banner banner-warn banner-note" role="alert" data-testid="time-link-note">
      <div>
        {note.problems.map((p) => (
          <p key={p.key}>
            This link's{" "}
            <code>
              {p.key}={p.value}
            </code>{" "}
            cannot be used: <code>{p.key}</code> takes {p.expected}.
          </p>
        ))}
        <p>
          {note.problems.length === 1 ? "It was" : "They were"} left out: the page shows {shows ?? describeTime(time)}, and the
          link now says so.
        </p>
      </div>
      <button type="button" className="btn" onClick={note.dismiss}>
        Dismiss
      </button>
    </div>
  );
}
