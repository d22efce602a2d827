// The note a link with a malformed time gets (as_of=garbage): which parameter,
// what it takes, and what the page shows instead (the URL now says so; on the
// Events and Runs tabs the link keeps it, in its field marked invalid).

import { formatInstant, formatSpan } from "../../format";
import type { TimeView } from "../../history/time";
import type { TimeLinkNote as Note } from "../../hooks/useTimeLink";

/** What the Lineage tab shows for `time`, in words. */
export function describeTime(time: TimeView): string {
  let shown: string;
  if (time.window) {
    shown = `the lineage seen during ${formatSpan(time.since, time.until)}`;
  } else if (time.asOf) shown = `the lineage as of ${formatInstant(time.asOf)}`;
  else shown = "the current graph";
  return time.changesSince ? `${shown}, with the changes since ${formatInstant(time.changesSince)}` : shown;
}

/** A list's time range in words, as a filter's bounds name it (`any`: with neither). */
export interface RangeWords {
  from: string;
  until: string;
  any: string;
}

/** What a list filtered by `since` and `until` (ISO; null: no bound) shows: "every event, from 2026-11-28 02:00:00". */
export function describeRange(what: string, since: string | null, until: string | null, words: RangeWords): string {
  const bounds = [];
  if (since) bounds.push(`${words.from} ${formatInstant(since)}`);
  if (until) bounds.push(`${words.until} ${formatInstant(until)}`);
  return `${what}, ${bounds.length ? bounds.join(" ") : words.any}`;
}

/**
 * `shows`: what the page shows instead, in words (the Lineage tab's view: describeTime).
 * `kept`: the link keeps the value, in its field marked invalid (the Events and Runs
 * tabs' filters), rather than dropping it.
 */
export function TimeLinkNote({ note, shows, kept = false }: { note: Note; shows: string; kept?: boolean }) {
  const one = note.problems.length === 1;
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
          {one ? "It was" : "They were"} left out: the page shows {shows}
          {kept ? `; ${one ? "its field stays" : "their fields stay"} marked until corrected or cleared.` : ", and the link now says so."}
        </p>
      </div>
      <button type="button" className="btn" onClick={note.dismiss}>
        Dismiss
      </button>
    </div>
  );
}
