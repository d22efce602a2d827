// Small text formatters shared by the views.

import { fractionDigits, isoOf, parseInstant } from "./history/instant";
import { utcOffset, zoneName } from "./zone";

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * A local date as YYYY-MM-DD, the year in four digits (year 1 is 0001, not
 * "1"; a year before 1 in the browser's time zone, such as year 1's first
 * hours west of UTC, is 0000).
 */
export function localDate(date: Date): string {
  return `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/**
 * An instant in the browser's time zone, to the second; with `digits` 3 or 6,
 * to the millisecond or the microsecond (read from the exact string, never
 * rounded through a Date).
 */
export function formatTime(iso: string | null | undefined, digits: 0 | 3 | 6 = 0): string {
  if (!iso) return "—";
  const at = parseInstant(iso);
  const date = at ? new Date(at.ms) : new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const text =
    `${localDate(date)} ` +
    `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
  if (digits === 0) return text;
  const fraction = pad(date.getMilliseconds(), 3) + (at ? pad(at.us, 3) : "000");
  return `${text}.${fraction.slice(0, digits)}`;
}

/**
 * An instant with the fraction it has (none, milliseconds or microseconds) and
 * the zone it is shown in, for a sentence: "2026-12-01 10:00:00 Asia/Kolkata".
 */
export function formatInstant(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${formatTime(iso, fractionDigits(iso))} ${zoneName()}`;
}

/** A window for a sentence, its zone named once: "2026-12-01 10:00:00 – 2026-12-02 10:00:00 Asia/Kolkata". */
export function formatSpan(since: string | null | undefined, until: string | null | undefined): string {
  if (!until) return `${formatInstant(since)} – now`;
  return `${formatTime(since, since ? fractionDigits(since) : 0)} – ${formatInstant(until)}`;
}

/**
 * The digits a list of times needs so that rows in the same second read
 * apart: 0 when no two differ within a second, else 3, or 6 when two differ
 * within a millisecond.
 */
export function timeDigits(isos: readonly (string | null | undefined)[]): 0 | 3 | 6 {
  const distinct = [...new Set(isos.filter((iso): iso is string => !!iso))];
  for (const digits of [0, 3] as const) {
    const shown = new Set(distinct.map((iso) => formatTime(iso, digits)));
    if (shown.size === distinct.length) return digits;
  }
  return 6;
}

/**
 * A time's tooltip: its UTC instant as the API says it, then (in a browser
 * not at UTC) exactly as shown, in the browser's zone with its offset then:
 * "UTC: 2026-12-03T18:10:54.712196Z" and "Asia/Kolkata: 2026-12-03 23:40:54.712196 (UTC+05:30)".
 */
export function exactTime(iso: string | null | undefined): string | undefined {
  const at = parseInstant(iso);
  if (!iso || !at) return undefined;
  const utc = `UTC: ${isoOf(at)}`;
  const zone = zoneName();
  if (zone === "UTC") return utc;
  return `${utc}\n${zone}: ${formatTime(iso, 6)} (${utcOffset(new Date(at.ms))})`;
}

export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${ms} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  if (minutes < 60) return `${minutes} min ${rest} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

/** "86400" / "86400s" / 86400 seconds -> "1 day". 0 means no limit. */
export function formatTtl(value: unknown): string {
  let seconds: number | null = null;
  if (typeof value === "number") seconds = value;
  else if (typeof value === "string") {
    const parsed = Number.parseFloat(value.replace(/s$/, ""));
    if (!Number.isNaN(parsed)) seconds = parsed;
  }
  if (seconds === null) return String(value ?? "—");
  if (seconds === 0) return "no limit";
  const units: [number, string][] = [
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
    [1, "second"],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${unit}${n === 1 ? "" : "s"}`;
    }
  }
  return `${seconds} s`;
}

export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  return n.toLocaleString("en-US");
}

/** 9800000 -> "9.3 MiB". */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

const KNOWN_PRODUCERS = [
  "feast",
  "airflow",
  "dbt",
  "spark",
  "flink",
  "trino",
  "great_expectations",
  "great-expectations",
  "dagster",
  "hive",
  "ray",
  "marquez",
];

/** A short name for a producer URI: "airflow", "dbt", "feast", or its host and path. */
export function producerLabel(producer: string | null | undefined): string {
  if (!producer) return "";
  const lower = producer.toLowerCase();
  const hash = lower.split("#")[1];
  if (hash) return decodeURIComponent(hash);
  let parts: string[];
  let host = "";
  try {
    const url = new URL(lower);
    host = url.host;
    parts = url.pathname.split("/").filter(Boolean);
  } catch {
    return producer.length > 24 ? `${producer.slice(0, 24)}…` : producer;
  }
  // The most specific part first: ".../integration/dbt" is dbt, whoever hosts it.
  for (const part of [...parts].reverse()) {
    const known = KNOWN_PRODUCERS.find((name) => part === name || part.startsWith(`${name}-`));
    if (known) return known.replace("_", " ");
  }
  for (const part of [...parts].reverse()) {
    const known = KNOWN_PRODUCERS.find((name) => part.includes(name));
    if (known) return known.replace("_", " ");
  }
  return hostAndPath(producer) ?? host;
}

/** An unknown producer as a person recognises it: "example.com/synthetic-stress/1.0". */
function hostAndPath(producer: string): string | null {
  try {
    const url = new URL(producer);
    const path = url.pathname.replace(/\/+$/, "");
    return `${url.host}${path}` || null;
  } catch {
    return null;
  }
}

/** The end of an id: time-ordered UUIDs (v7) share their first digits. */
export function shortId(id: string | null | undefined): string {
  if (!id) return "—";
  return id.length > 8 ? `…${id.slice(-8)}` : id;
}
