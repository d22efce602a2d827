// The depth of a focused graph or a traced column, as the URL's `depth`
// names it: a whole number of steps from 1 to 20. The page shows the depth
// it asks the server for, and the URL is rewritten to say the same
// (useCanonicalUrl): `depth=-5` becomes `depth=1`.

export const MAX_DEPTH = 20;
/** The depths the menus offer ("all" is the largest). */
export const DEPTHS = [1, 2, 3, 4, 5, 10, MAX_DEPTH];

/** The depth a URL value names, or null when it names none (the view's default applies). */
export function parseDepth(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  const depth = Number(value);
  if (!Number.isFinite(depth)) return null;
  return Math.min(MAX_DEPTH, Math.max(1, Math.round(depth)));
}

/** The depths a menu offers: the usual ones, and the current one if it is another (a link's depth=7). */
export function depthChoices(current: number): number[] {
  return DEPTHS.includes(current) ? DEPTHS : [...DEPTHS, current].sort((a, b) => a - b);
}

export function depthLabel(depth: number): string {
  return depth === MAX_DEPTH ? `all (${MAX_DEPTH})` : String(depth);
}
