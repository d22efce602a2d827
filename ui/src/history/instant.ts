// Instants exact to the microsecond, as the API writes them
// ("2026-12-03T18:10:54.712196Z"). A JavaScript Date holds milliseconds: a
// run's end read through one would be 18:10:54.712, before the run ended,
// and the API answers that instant with the run still RUNNING. So an instant
// from the API or the URL is kept as its exact string, parsed here when it
// must be compared, stepped or shown, and a Date is made only for showing it
// in the browser's time zone.
//
// The forms taken are the server's (event_time.py): YYYY-MM-DD, then T (or a
// space), hh:mm with optional :ss and a fraction of any length (cut to
// microseconds), then Z, an offset (+02:00, +0200, +02) or none (UTC).
// Year 0 is refused (the server's calendar starts at year 1), and an instant
// an offset carries past 0001-01-01T00:00:00Z or 9999-12-31T23:59:59.999999Z
// is that first or last instant, as the server takes it: past them, no ISO
// date can be written back, and the server would refuse what we sent.

import { zoneName } from "../zone";

/** An instant: milliseconds since the epoch (floored), and the microseconds past them (0 to 999). */
export interface Instant {
  ms: number;
  us: number;
}

/** What the Lineage tab's time parameters take, in words (for the messages that name a bad one). */
export const INSTANT_FORM =
  "an ISO 8601 instant such as 2026-12-01T09:00:00Z (UTC; an offset such as +02:00 also works, and a fraction of a second up to microseconds)";

/**
 * What the Events and Runs tabs' time filters take, in words (for the note that
 * names a bad one in a link), naming the browser's zone a local time is read in.
 */
export function filterTimeForm(): string {
  return `a time such as 2026-11-28 02:00 (in your time zone, ${zoneName()}; seconds optional, or a date alone) or an instant with Z or an offset such as 2026-11-28T02:00:00Z`;
}

/** The first instant an ISO date shows: 0001-01-01T00:00:00Z (the server's FIRST_US). */
const FIRST: Instant = { ms: -62_135_596_800_000, us: 0 };
/** The last: 9999-12-31T23:59:59.999999Z (the server's MAX_US). */
const LAST: Instant = { ms: 253_402_300_799_999, us: 999 };

const before = (a: Instant, b: Instant) => a.ms < b.ms || (a.ms === b.ms && a.us < b.us);

/** `at` within the instants an ISO date shows (the first or last of them when beyond). */
function clamped(at: Instant): Instant {
  if (before(at, FIRST)) return FIRST;
  return before(LAST, at) ? LAST : at;
}

const FORM =
  /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)?$/;

/** `text` as an instant, or null when it is not one of the forms taken (or not a real date). */
export function parseInstant(text: string | null | undefined): Instant | null {
  if (!text) return null;
  const found = FORM.exec(text);
  if (!found) return null;
  const [, year, month, day, hour, minute, second, fraction, , sign, offH, offM] = found;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  let s = second === undefined ? 0 : Number(second);
  let micros = fraction ? Number(fraction.slice(0, 6).padEnd(6, "0")) : 0;
  const leap = s === 60;
  if (leap) {
    s = 59;
    micros = 999_999;
  }
  if (y === 0 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const date = new Date(0);
  // (setUTCFullYear: Date.UTC would read the years 0 to 99 as 1900 to 1999.)
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCDate() !== d) return null; // February 30th
  date.setUTCHours(h, mi, s, 0);
  let offset = 0;
  if (sign) {
    const oh = Number(offH);
    const om = Number(offM ?? 0);
    if (oh > 23 || om > 59) return null;
    offset = (oh * 60 + om) * (sign === "-" ? -1 : 1);
  }
  const ms = date.getTime() - offset * 60_000 + Math.floor(micros / 1000);
  if (leap && new Date(ms).getUTCHours() * 60 + new Date(ms).getUTCMinutes() !== 1439) return null;
  return clamped({ ms, us: micros % 1000 });
}

/**
 * The server's form of an instant: UTC, with six digits of fraction when it
 * has one (one beyond the years 1 to 9999 is the first or last of them).
 */
export function isoOf(instant: Instant): string {
  const at = clamped(instant);
  const base = new Date(at.ms).toISOString(); // YYYY-MM-DDThh:mm:ss.mmmZ
  const millis = ((at.ms % 1000) + 1000) % 1000;
  if (millis === 0 && at.us === 0) return `${base.slice(0, 19)}Z`;
  return `${base.slice(0, 23)}${String(at.us).padStart(3, "0")}Z`;
}

/** `text` in the server's form (the same instant, exactly); null when it is not an instant. */
export function exactInstant(text: string | null | undefined): string | null {
  const at = parseInstant(text);
  return at ? isoOf(at) : null;
}

/** Orders two instants (negative: `a` is earlier); one that is not an instant comes first. */
export function compareInstants(a: string, b: string): number {
  const x = parseInstant(a);
  const y = parseInstant(b);
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0);
  return x.ms - y.ms || x.us - y.us;
}

/**
 * The instant one microsecond after `iso` (the store's resolution): the API's
 * `until` keeps what is before it, so `until` = this keeps what is at or
 * before `iso`, as `as_of` means. Null when `iso` is not an instant, or is
 * the last one (9999-12-31T23:59:59.999999Z): nothing is after it, so
 * everything is at or before it, and no bound is to be sent.
 */
export function justAfter(iso: string): string | null {
  const at = parseInstant(iso);
  if (!at || !before(at, LAST)) return null;
  return isoOf(at.us === 999 ? { ms: at.ms + 1, us: 0 } : { ms: at.ms, us: at.us + 1 });
}

/** The Date of an instant, to the millisecond (to show it in the browser's time zone). */
export function dateOf(iso: string): Date | null {
  const at = parseInstant(iso);
  return at ? new Date(at.ms) : null;
}

/** Digits of a second's fraction an instant needs: 0, 3 (milliseconds) or 6 (microseconds). */
export function fractionDigits(iso: string): 0 | 3 | 6 {
  const at = parseInstant(iso);
  if (!at) return 0;
  if (at.us !== 0) return 6;
  return ((at.ms % 1000) + 1000) % 1000 === 0 ? 0 : 3;
}

const LOCAL_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?$/;

/**
 * A local time as a field takes it ("2026-11-28T02:00"; seconds, a fraction or
 * the time of day optional), in the browser's time zone; null when it is not
 * one, or names no real date and time: a Date would take February 30th as
 * March 2nd and 24:00 as the next day, so each part must read back the same.
 */
export function localTimeOf(text: string): Date | null {
  const found = LOCAL_TIME.exec(text);
  if (!found) return null;
  const [y, mo, d, h, mi, s] = found.slice(1, 7).map((part) => Number(part ?? 0));
  const ms = Number((found[7] ?? "").slice(0, 3).padEnd(3, "0"));
  // The calendar checked in UTC (a local time a clock change skips is still a time).
  const day = new Date(0);
  day.setUTCFullYear(y, mo - 1, d);
  day.setUTCHours(h, mi, s);
  const read = [day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate()];
  read.push(day.getUTCHours(), day.getUTCMinutes(), day.getUTCSeconds());
  if (y === 0 || read.some((part, i) => part !== [y, mo, d, h, mi, s][i])) return null;
  // (setFullYear: the Date constructor would read the years 0 to 99 as 1900 to 1999.)
  const date = new Date(2000, 0, 1);
  date.setFullYear(y, mo - 1, d);
  date.setHours(h, mi, s, ms);
  return date;
}

/** A typed time (a local one, or an instant with its offset) as a Date; null when it is not a real one. */
export function typedDate(text: string): Date | null {
  return LOCAL_TIME.test(text) ? localTimeOf(text) : dateOf(text);
}

/**
 * A time filter's value as the URL gives it, as the instant the API is asked
 * for, in the server's form (UTC, exactly): an instant with Z or an offset
 * (what the filters write) as it is; a local time without a zone
 * ("2026-11-28T02:00", what they wrote before Session 18) read in the
 * browser's time zone, so an old link keeps its meaning for the one who made
 * it. Null when it is not a real time.
 */
export function typedIso(text: string | null | undefined): string | null {
  if (!text) return null;
  if (!LOCAL_TIME.test(text)) return exactInstant(text);
  const date = localTimeOf(text);
  return date ? isoOf({ ms: date.getTime(), us: 0 }) : null;
}
