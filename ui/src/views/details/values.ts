// Free-form values (facets, Feast definitions) as text for a row: null when
// there is nothing to show.

export function list(value: unknown): string | null {
  if (Array.isArray(value)) return value.length ? value.map(String).join(", ") : null;
  return null;
}

export function bool(value: unknown): string | null {
  return typeof value === "boolean" ? (value ? "yes" : "no") : null;
}

export function text(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
