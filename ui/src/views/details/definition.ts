// Reading a Feast registry object's definition (the registry's JSON of it:
// spec and meta) for its details panel.

import { isVisualKind, type VisualKind } from "../../graph/kinds";
import type { SchemaField } from "../../types";

export function registryKind(type: string, missing: boolean | undefined): VisualKind {
  if (missing) return "missing";
  return isVisualKind(type) ? type : "dataset";
}

export interface Definition {
  spec: Record<string, unknown>;
  meta: Record<string, unknown>;
}

export function definitionOf(object: Record<string, unknown> | null | undefined): Definition {
  if (!object) return { spec: {}, meta: {} };
  const spec = (object.spec as Record<string, unknown> | undefined) ?? object;
  const meta = (object.meta as Record<string, unknown> | undefined) ?? {};
  return { spec, meta };
}

/** The first `uri`, `path` or `file_url` anywhere in a definition. */
export function findUri(value: unknown, depth = 0): string | null {
  if (!value || typeof value !== "object" || depth > 5) return null;
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if ((key === "uri" || key === "file_url" || key === "path") && typeof item === "string" && item) return item;
  }
  for (const item of Object.values(value as Record<string, unknown>)) {
    const found = findUri(item, depth + 1);
    if (found) return found;
  }
  return null;
}

/** The fields of a definition: its entity columns, features and schema. */
export function registryFields(spec: Record<string, unknown>): SchemaField[] {
  const fields: SchemaField[] = [];
  const add = (items: unknown) => {
    if (!Array.isArray(items)) return;
    for (const item of items) {
      if (item && typeof item === "object" && "name" in item) {
        const f = item as { name: string; value_type?: string; description?: string };
        fields.push({ name: f.name, type: f.value_type ?? null, description: f.description ?? null });
      }
    }
  };
  add(spec.entity_columns);
  add(spec.features);
  if (Array.isArray(spec.schema)) add(spec.schema);
  return fields;
}

/** What a feature service serves: each feature view with its features. */
export function servedFeatures(
  type: string,
  spec: Record<string, unknown>,
): { feature_view_name?: string; feature_columns?: unknown[] }[] | null {
  return Array.isArray(spec.features) && type === "feature_service"
    ? (spec.features as { feature_view_name?: string; feature_columns?: unknown[] }[])
    : null;
}

/** The code of an on-demand feature view's transformation. */
export function transformationCode(spec: Record<string, unknown>): string | undefined {
  const transformation = spec.feature_transformation as Record<string, { body_text?: string }> | undefined;
  return transformation ? Object.values(transformation).find((t) => t?.body_text)?.body_text : undefined;
}
