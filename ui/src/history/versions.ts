// What changed from one version to the next, as the versions lists say it in
// one line: a dataset's schema ("+2 fields, 1 type changed") and a job's
// inputs, outputs and source facets. Pure functions of the API's answers.

import type { DatasetRef, JobVersionItem, VersionField } from "../types";

export interface FieldDiff {
  added: string[];
  removed: string[];
  typeChanged: { name: string; before: string | null; after: string | null }[];
  descriptionChanged: string[];
}

/** The fields of `after` against those of `before` (null: no earlier version). */
export function fieldDiff(before: VersionField[] | null, after: VersionField[]): FieldDiff {
  const old = new Map((before ?? []).map((f) => [f.name, f]));
  const now = new Map(after.map((f) => [f.name, f]));
  const diff: FieldDiff = { added: [], removed: [], typeChanged: [], descriptionChanged: [] };
  for (const [name, field] of now) {
    const was = old.get(name);
    if (!was) diff.added.push(name);
    else {
      if ((was.type ?? null) !== (field.type ?? null)) {
        diff.typeChanged.push({ name, before: was.type ?? null, after: field.type ?? null });
      }
      if ((was.description ?? null) !== (field.description ?? null)) diff.descriptionChanged.push(name);
    }
  }
  for (const name of old.keys()) if (!now.has(name)) diff.removed.push(name);
  return diff;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** "+2 fields, 1 type changed"; "" when the schema did not change. */
export function schemaChangeLine(diff: FieldDiff | null): string {
  if (!diff) return "";
  const parts: string[] = [];
  if (diff.added.length) parts.push(`+${plural(diff.added.length, "field", "fields")}`);
  if (diff.removed.length) parts.push(`−${plural(diff.removed.length, "field", "fields")}`);
  if (diff.typeChanged.length) parts.push(`${plural(diff.typeChanged.length, "type", "types")} changed`);
  if (diff.descriptionChanged.length) {
    parts.push(`${plural(diff.descriptionChanged.length, "description", "descriptions")} changed`);
  }
  return parts.join(", ");
}

export interface JobChange {
  inputsAdded: DatasetRef[];
  inputsRemoved: DatasetRef[];
  outputsAdded: DatasetRef[];
  outputsRemoved: DatasetRef[];
  /** Source facets (sourceCode, sql, sourceCodeLocation, jobType) added, removed or changed. */
  facetsChanged: string[];
}

const refKey = (ref: DatasetRef) => `${ref.namespace}\u0000${ref.name}`;

function minus(a: DatasetRef[], b: DatasetRef[]): DatasetRef[] {
  const keys = new Set(b.map(refKey));
  return a.filter((ref) => !keys.has(refKey(ref)));
}

/** What `after` changed from `before` (null: the first version: everything is added). */
export function jobChange(before: JobVersionItem | null, after: JobVersionItem): JobChange {
  const facets = new Set([...Object.keys(before?.source_facets ?? {}), ...Object.keys(after.source_facets)]);
  const facetsChanged = [...facets]
    .filter((key) => JSON.stringify(before?.source_facets[key] ?? null) !== JSON.stringify(after.source_facets[key] ?? null))
    .sort();
  return {
    inputsAdded: minus(after.inputs, before?.inputs ?? []),
    inputsRemoved: minus(before?.inputs ?? [], after.inputs),
    outputsAdded: minus(after.outputs, before?.outputs ?? []),
    outputsRemoved: minus(before?.outputs ?? [], after.outputs),
    facetsChanged,
  };
}
