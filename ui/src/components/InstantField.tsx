// A time filter as one text field (one stop of the Tab key, where a
// datetime-local input is one per part of the date): it takes
// "2026-11-28 02:00" (with seconds, or a date alone, in the browser's time
// zone) or an instant with its offset ("2026-11-28T02:00:00Z"), and offers a
// few recent instants to pick with the mouse. A complete time is used once
// typing pauses (or at once with Enter); one that is not a time is marked
// invalid and left out of the URL. The zone the text is read in is named
// beside it: the browser's ("Asia/Kolkata"), or UTC or the offset typed.

import { useEffect, useId, useRef, useState } from "react";
import { typedDate } from "../history/instant";
import { zoneName, zoneOfTyped } from "../zone";

/** What the field takes, in words (its tooltip and the docs). */
export function timeForms(): string {
  return `YYYY-MM-DD hh:mm (seconds optional; in your time zone, ${zoneName()}), a date alone, or an instant with Z or an offset`;
}

const LOCAL = /^(\d{4}-\d\d-\d\d)(?:[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?))?$/;
const ZONED = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d(?::?\d\d)?)$/i;

/**
 * What the field gives for a typed time ("2026-11-28T02:00", local; or the instant as
 * typed, with its offset); "" for no time; null when it is not a time. The page
 * writes its UTC instant in the URL (history/time.ts typedInstant, instant.ts typedIso).
 */
export function normalTime(text: string): string | null {
  const typed = text.trim();
  if (typed === "") return "";
  const local = LOCAL.exec(typed);
  const value = local ? `${local[1]}T${local[2] ?? "00:00"}` : ZONED.test(typed) ? typed.replace(" ", "T").replace(/z$/, "Z") : null;
  // A real date and time only (not February 30th, rolled over to March).
  return value !== null && typedDate(value) ? value : null;
}

/** How the field shows the URL's time: a local one with a space, as it is typed. */
function shown(value: string): string {
  return LOCAL.test(value) ? value.replace("T", " ") : value;
}

const pad = (n: number) => String(n).padStart(2, "0");
function localText(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** Recent instants to pick: an hour ago, the start of today and of yesterday, a week ago. */
function suggestions(now: Date): { value: string; label: string }[] {
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const day = 86_400_000;
  return [
    { value: localText(new Date(now.getTime() - 3_600_000)), label: "an hour ago" },
    { value: localText(today), label: "today, 00:00" },
    { value: localText(new Date(today.getTime() - day)), label: "yesterday, 00:00" },
    { value: localText(new Date(now.getTime() - 7 * day)), label: "a week ago" },
  ];
}

interface Props {
  label: string;
  value: string | undefined;
  onChange: (value: string | null) => void;
  disabled?: boolean;
  /** Marked invalid from outside too (a window whose since is not before its until). */
  invalid?: boolean;
  testId?: string;
}

/**
 * What the field holds: the text shown, whether the user typed it (only a
 * typed text is ever used: the field never writes back a value it was given),
 * and the value it was last given (`of`).
 */
interface Draft {
  text: string;
  typed: boolean;
  of: string | undefined;
}

const given = (value: string | undefined): Draft => ({ text: shown(value ?? ""), typed: false, of: value });

export function InstantField({ label, value, onChange, disabled, invalid: marked, testId }: Props) {
  const [draft, setDraft] = useState<Draft>(() => given(value));
  const [invalid, setInvalid] = useState(false);
  // A new value given (the URL changed by other means: "Swap them", a link)
  // replaces the text in the same render, typed or not: a pause timer of the
  // text before must not write it back over the new value.
  if (draft.of !== value) {
    setDraft(given(value));
    setInvalid(false);
  }
  const listId = useId();
  const zoneId = useId();
  const commitRef = useRef(onChange);
  commitRef.current = onChange;
  const valueRef = useRef(value ?? "");
  valueRef.current = value ?? "";
  const commit = (text: string, now: boolean): void => {
    const next = normalTime(text);
    if (next === null) {
      if (now) setInvalid(true);
      return;
    }
    setInvalid(false);
    if (next !== valueRef.current) commitRef.current(next || null);
  };
  // A complete time typed is used once typing pauses.
  useEffect(() => {
    if (!draft.typed) return;
    const timer = setTimeout(() => commit(draft.text, false), 600);
    return () => clearTimeout(timer);
  }, [draft]);
  const type = (text: string): void => setDraft({ text, typed: true, of: value });
  return (
    <>
      <input
        type="text"
        className="instant-field"
        value={draft.text}
        placeholder="YYYY-MM-DD hh:mm"
        title={`${label}: ${timeForms()}`}
        list={listId}
        aria-label={label}
        aria-describedby={zoneId}
        aria-invalid={invalid || marked || undefined}
        disabled={disabled}
        data-testid={testId}
        autoComplete="off"
        spellCheck={false}
        onChange={(e) => {
          type(e.target.value);
          setInvalid(false);
          // A suggestion picked with the mouse is used at once.
          if ((e.nativeEvent as InputEvent).inputType === "insertReplacementText") commit(e.target.value, false);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit(draft.text, true);
          }
        }}
        onBlur={() => {
          if (draft.typed) commit(draft.text, true);
        }}
      />
      <span className="zone-name" id={zoneId} data-testid={testId && `${testId}-zone`} title="The time zone this time is read in">
        {zoneOfTyped(draft.text)}
      </span>
      <datalist id={listId}>
        {suggestions(new Date()).map((s) => (
          <option key={s.label} value={s.value} label={s.label} />
        ))}
      </datalist>
    </>
  );
}
