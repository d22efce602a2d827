// Names that fit a node without losing what tells them apart.
//
// Names are often long and differ only at the end ("feast_materialize_
// feature_view_driver_hourly_stats" and "..._driver_daily_trips",
// "warehouse.analytics.table_17"). A name too long for its line keeps its
// start and its tail, with an ellipsis in the middle; the tail starts after a
// separator ("_", ".", "/", ":", "-") when one is close enough to the end.
// Widths are measured with the font the node uses (a canvas's measureText),
// so the text fits exactly and never needs the browser to clip it.

const ELLIPSIS = "…";
/** The tail keeps at most this share of the line; the start gets the rest. */
const TAIL_SHARE = 0.62;

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

/** The end of `text` that fits `width`: from a separator when one fits, else cut anywhere. */
export function tailOf(text: string, width: number, font: string): string {
  let best = "";
  for (let i = text.length - 2; i >= 0; i--) {
    if (!/[_./:-]/.test(text[i])) continue;
    const suffix = text.slice(i + 1);
    if (measure(suffix, font) > width) break;
    best = suffix;
  }
  if (best) return best;
  const count = longest(text.length, (n) => measure(text.slice(text.length - n), font) <= width);
  return text.slice(text.length - count);
}

/** `text` itself when it fits `width`, else its start, an ellipsis and its tail. */
export function middleEllipsis(text: string, width: number, font: string): string {
  if (measure(text, font) <= width) return text;
  const tail = tailOf(text, width * TAIL_SHARE, font);
  const rest = text.slice(0, text.length - tail.length);
  const count = longest(rest.length, (n) => measure(rest.slice(0, n) + ELLIPSIS + tail, font) <= width);
  return rest.slice(0, count) + ELLIPSIS + tail;
}

/** `text` cut at the end with an ellipsis to fit `width`. */
export function endEllipsis(text: string, width: number, font: string): string {
  if (measure(text, font) <= width) return text;
  const count = longest(text.length, (n) => measure(text.slice(0, n) + ELLIPSIS, font) <= width);
  return text.slice(0, count) + ELLIPSIS;
}

/**
 * A name on two lines: its end (from a separator when one fits: what tells
 * names apart) on the second line, the rest on the first, shortened with an
 * ellipsis when it does not fit.
 */
export function twoLines(text: string, width: number, font: string): [string, string] {
  if (measure(text, font) <= width) return [text, ""];
  const tail = tailOf(text, width, font);
  return [endEllipsis(text.slice(0, text.length - tail.length), width, font), tail];
}
