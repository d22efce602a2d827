// "Changes since…" in the details panel (issue 40): the node was added or
// removed since the earlier instant, or its schema changed, field by field.

import { formatTime } from "../../format";
import { CHANGE_ICONS } from "../../graph/elements";
import type { Change } from "../../graph/model";
import { CHANGE_LABELS } from "../../graph/useNodeKeys";
import type { FieldDiff } from "../../history/versions";
import { Section } from "./Section";

const CLASSES: Record<Change, string> = { added: "change-green", removed: "change-red", changed: "change-amber" };

export function ChangeSection({ change, since, schemaChange }: { change: Change; since: string; schemaChange: FieldDiff | null }) {
  const rows: [string, string, string][] = schemaChange
    ? [
        ...schemaChange.added.map((n): [string, string, string] => ["change-green", CHANGE_ICONS.added, `${n} added`]),
        ...schemaChange.removed.map((n): [string, string, string] => ["change-red", CHANGE_ICONS.removed, `${n} removed`]),
        ...schemaChange.typeChanged.map((f): [string, string, string] => [
          "change-amber",
          CHANGE_ICONS.changed,
          `${f.name}: type ${f.before ?? "none"} → ${f.after ?? "none"}`,
        ]),
        ...schemaChange.descriptionChanged.map((n): [string, string, string] => [
          "change-amber",
          CHANGE_ICONS.changed,
          `${n}: description changed`,
        ]),
      ]
    : [];
  return (
    <Section title={`Since ${formatTime(since)}`} testid="change-section">
      <p className={CLASSES[change]}>
        <span aria-hidden>{CHANGE_ICONS[change]}</span> {CHANGE_LABELS[change]}
      </p>
      {rows.length > 0 && (
        <ul className="plain schema-diff" data-testid="change-schema-diff">
          {rows.map(([cls, icon, text]) => (
            <li key={text} className={cls}>
              <span aria-hidden>{icon}</span> {text}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
