// "Changes since…" in the details panel (issue 40): the node was added or
// removed since the earlier instant; a dataset's schema changed, field by
// field, with its version on each side; a job's definition changed (its SQL,
// source, inputs or outputs), with its job version on each side. Each side's
// version opens in the panel's versions section.

import { formatInstant, shortId } from "../../format";
import { CHANGE_ICONS, CHANGE_LABELS, JOB_CHANGE_ICON, type Change } from "../../graph/model";
import type { JobDiff, SchemaChangeOf } from "../../history/changes";
import type { Navigate, Patch } from "../../route";
import { Section } from "./Section";

const CLASSES: Record<Change, string> = { added: "change-green", removed: "change-red", changed: "change-amber" };

interface Props {
  change: Change;
  since: string;
  /** The later instant compared (the time control's as of); null: now. */
  to: string | null;
  schemaChange: SchemaChangeOf | null;
  jobChange: JobDiff | null;
  /** A changed job's change in words ("sql, inputs changed"). */
  words: string | null;
  navigate: Navigate;
}

export function ChangeSection({ change, since, to, schemaChange, jobChange, words, navigate }: Props) {
  const diff = schemaChange?.diff ?? null;
  const rows: [string, string, string][] = diff
    ? [
        ...diff.added.map((n): [string, string, string] => ["change-green", CHANGE_ICONS.added, `${n} added`]),
        ...diff.removed.map((n): [string, string, string] => ["change-red", CHANGE_ICONS.removed, `${n} removed`]),
        ...diff.typeChanged.map((f): [string, string, string] => [
          "change-amber",
          CHANGE_ICONS.changed,
          `${f.name}: type ${f.before ?? "none"} → ${f.after ?? "none"}`,
        ]),
        ...diff.descriptionChanged.map((n): [string, string, string] => [
          "change-amber",
          CHANGE_ICONS.changed,
          `${n}: description changed`,
        ]),
      ]
    : [];
  const job = change === "changed" && jobChange;
  const icon = job ? JOB_CHANGE_ICON : CHANGE_ICONS[change];
  const label = job ? (words ?? "definition changed") : CHANGE_LABELS[change];
  const versions = job ? jobChange : schemaChange;
  // A job's version opens in its Versions section (jobver), a dataset's in its own (dsver).
  const key: VersionKey = job ? "jobver" : "dsver";
  return (
    <Section title={`Since ${formatInstant(since)}`} testid="change-section">
      <p className={CLASSES[change]}>
        <span aria-hidden>{icon}</span> {label}
      </p>
      {rows.length > 0 && (
        <ul className="plain schema-diff" data-testid="change-schema-diff">
          {rows.map(([cls, rowIcon, text]) => (
            <li key={text} className={cls}>
              <span aria-hidden>{rowIcon}</span> {text}
            </li>
          ))}
        </ul>
      )}
      {versions && (versions.from || versions.to) && (
        <ul className="plain small change-versions" data-testid="change-versions">
          {(
            [
              ["then", versions.from, `Version then`],
              ["now", versions.to, to ? `Version as of ${formatInstant(to)}` : `Version now`],
            ] as const
          ).map(([side, id, text]) =>
            id ? (
              <li key={side}>
                {text}:{" "}
                <button
                  type="button"
                  className="link mono"
                  data-testid={`change-version-${side}`}
                  title={`Open version ${id}`}
                  onClick={() => navigate(openPatch(key, id, side, since), { push: true })}
                >
                  {shortId(id)}
                </button>
              </li>
            ) : (
              <li key={side} className="muted">
                {text}: none
              </li>
            ),
          )}
        </ul>
      )}
    </Section>
  );
}

type VersionKey = "jobver" | "dsver";

/**
 * Open a side's version. A job's version then is read as of `since`
 * (jobver_at): the version a run under way then ran may be one no run runs
 * later, which the Versions section as of the later instant does not list.
 */
function openPatch(key: VersionKey, id: string, side: "then" | "now", since: string): Patch {
  if (key === "dsver") return { dsver: id };
  return { jobver: id, jobver_at: side === "then" ? since : null };
}
