// Names that fit a node, cut only between words.
//
// Names are often long and differ only at the end ("feast_materialize_
// feature_view_driver_hourly_stats" and "..._driver_daily_trips",
// "warehouse.analytics.table_17"). A name is shown whole when it fits, on
// one line or wrapped onto two at its word boundaries (after "_", ".", "/",
// ":", "-" or a space); too long for that, it keeps its start and its tail,
// whole words each, around an ellipsis. A name may have an end to keep whole
// (a task's own name after its DAG's, "driver_features_daily.export_daily_
// trips"): cut, it keeps that end when it fits, cutting the start first
// ("…export_daily_trips", not "driver_…daily_trips", which reads as another
// name). Only a single word wider than the whole line is ever cut inside.
// Widths are measured with the font the node uses (a canvas's measureText),
// so the text fits exactly and never needs the browser to clip it.

const ELLIPSIS = "…";
/** The tail keeps at most this share of the line (an end to keep, more); the start gets the rest. */
const TAIL_SHARE = 0.62;

let family: string | null = null;
/** The font the graph's text is drawn in (as the stylesheet sets it), for measuring. */
export function font(weight: number, size: number): string {
  family ??= getComputedStyle(document.documentElement).fontFamily || "sans-serif";
  return `${weight} ${size}px ${family}`;
}

let context: CanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();

export function measure(text: string, font: string): number {
  const key = `${font}\u0000${text}`;
  const known = widths.get(key);
  if (known !== undefined) return known;
  if (context === undefined) context = document.createElement("canvas").getContext("2d");
  let width: number;
  if (context) {
    context.font = font;
    width = context.measureText(text).width;
  } else {
    width = text.length * parseFloat(font.replace(/^\D*/, "")) * 0.6;
  }
  if (widths.size > 50_000) widths.clear();
  widths.set(key, width);
  return width;
}

/** The longest `count` in [0, max] for which `fits(count)` holds (fits is monotone). */
function longest(max: number, fits: (count: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(mid)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The words of `text`, each with the separators that follow it ("driver_", "hourly_", "stats"). */
export function words(text: string): string[] {
  return text.match(/[^_./:\- ]*[_./:\- ]*/g)?.filter((w) => w.length > 0) ?? [text];
}

/** The longest run of whole words at the end of `text` that fits `width` ("" if none). */
function tailWords(parts: string[], width: number, font: string): number {
  let count = 0;
  let text = "";
  for (let i = parts.length - 1; i >= 0; i--) {
    const longer = parts[i] + text;
    if (measure(longer, font) > width) break;
    text = longer;
    count++;
  }
  return count;
}

/** The end of `text` that fits `width`: whole words when one fits, else the end of its last word. */
export function tailOf(text: string, width: number, font: string): string {
  const parts = words(text);
  const count = tailWords(parts, width, font);
  if (count > 0) return parts.slice(parts.length - count).join("");
  const chars = longest(text.length, (n) => measure(text.slice(text.length - n), font) <= width);
  return text.slice(text.length - chars);
}

/** The longest run of whole words at the start of `parts` for which `fits` holds. */
function headWords(parts: string[], fits: (head: string) => boolean): string {
  let head = "";
  for (const part of parts) {
    if (!fits(head + part)) break;
    head += part;
  }
  return head;
}

/**
 * `text` itself when it fits `width`, else its first words, an ellipsis and
 * its last words (the end tells similar names apart, so it gets most room),
 * those at least `keep` (an end of `text`) when that fits.
 */
export function middleEllipsis(text: string, width: number, font: string, keep = ""): string {
  if (measure(text, font) <= width) return text;
  let tail = tailOf(text, width * TAIL_SHARE, font) || tailOf(text, width - measure(ELLIPSIS, font), font);
  if (keep.length > tail.length && measure(ELLIPSIS + keep, font) <= width) tail = keep;
  const rest = words(text.slice(0, text.length - tail.length));
  const head = headWords(rest, (h) => measure(h + ELLIPSIS + tail, font) <= width);
  return head + ELLIPSIS + tail;
}

/** `text` cut after its last whole word that fits `width`, with an ellipsis. */
export function endEllipsis(text: string, width: number, font: string): string {
  if (measure(text, font) <= width) return text;
  const head = headWords(words(text), (h) => measure(h + ELLIPSIS, font) <= width);
  if (head) return head + ELLIPSIS;
  const count = longest(text.length, (n) => measure(text.slice(0, n) + ELLIPSIS, font) <= width);
  return text.slice(0, count) + ELLIPSIS;
}

/**
 * A name on up to two lines, wrapped between words. When it needs more, the
 * second line is its end (what tells names apart) and the first its start,
 * both whole words, the first ending in an ellipsis. An end to `keep` wider
 * than the second line takes the first too after the ellipsis, when it fits.
 */
export function twoLines(text: string, width: number, font: string, keep = ""): [string, string] {
  if (measure(text, font) <= width) return [text, ""];
  const parts = words(text);
  const first = headWords(parts, (h) => measure(h, font) <= width);
  const second = text.slice(first.length);
  if (first && measure(second, font) <= width) return [first, second];
  const tail = tailOf(text, width, font);
  const kept = keep.slice(0, Math.max(0, keep.length - tail.length)); // what of `keep` the first line holds
  if (kept && measure(ELLIPSIS + kept, font) <= width) {
    const start = words(text.slice(0, text.length - keep.length));
    return [headWords(start, (h) => measure(h + ELLIPSIS + kept, font) <= width) + ELLIPSIS + kept, tail];
  }
  return [endEllipsis(text.slice(0, text.length - tail.length), width, font), tail];
}
