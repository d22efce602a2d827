// Feast's internals: a feature view without entities gets Feast's
// placeholder entity `__dummy`, whose join key is `__dummy_id`. They are
// Feast's, not the user's: the details panel leaves them out of entities,
// join keys and schemas, and says that it did.

import type { ReactNode } from "react";
import type { SchemaField } from "../../types";

export const FEAST_DUMMY_ENTITY = "__dummy";
export const FEAST_DUMMY_KEY = "__dummy_id";
const INTERNAL = new Set([FEAST_DUMMY_ENTITY, FEAST_DUMMY_KEY]);

export function isFeastInternal(name: string): boolean {
  return INTERNAL.has(name);
}

/** The fields of a schema that are the user's, and those that are Feast's. */
export function splitFields(fields: SchemaField[]): { own: SchemaField[]; internal: SchemaField[] } {
  return { own: fields.filter((f) => !isFeastInternal(f.name)), internal: fields.filter((f) => isFeastInternal(f.name)) };
}

/** A list of names (entities, join keys) as a row's value, without Feast's placeholders. */
export function namesWithoutInternals(value: unknown): ReactNode {
  if (!Array.isArray(value) || value.length === 0) return null;
  const names = value.map(String);
  const own = names.filter((n) => !isFeastInternal(n));
  const internal = names.filter(isFeastInternal);
  if (internal.length === 0) return own.join(", ");
  return (
    <span data-testid="feast-internal-note">
      {own.length ? own.join(", ") : "none"}{" "}
      <span className="muted small">
        (Feast's internal placeholder <code>{internal.join(", ")}</code> of a view without entities, not shown)
      </span>
    </span>
  );
}
