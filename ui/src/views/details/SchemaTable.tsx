// A schema's fields: name, type and description, fitted to the panel's
// width (long names and descriptions wrap). Feast's internal fields
// (feastInternals.tsx) are left out, with a note.

import type { ReactNode } from "react";
import type { SchemaField } from "../../types";
import { splitFields } from "./feastInternals";
import { Section } from "./Section";

export function SchemaTable({ fields }: { fields: SchemaField[] }) {
  return (
    <table className="table schema" data-testid="schema-table">
      <colgroup>
        <col className="schema-name" />
        <col className="schema-type" />
        <col />
      </colgroup>
      <thead>
        <tr>
          <th>Field</th>
          <th>Type</th>
          <th>Description</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f.name}>
            <td className="mono">{f.name}</td>
            <td className="mono">{f.type ?? ""}</td>
            <td>{f.description ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The "Schema" section of a panel: the user's fields, and a note of Feast's left out. */
export function SchemaSection({ fields, children }: { fields: SchemaField[]; children?: ReactNode }) {
  const { own, internal } = splitFields(fields);
  if (own.length === 0 && internal.length === 0) return null;
  return (
    <Section title={`Schema (${own.length} field${own.length === 1 ? "" : "s"})`} testid="schema-section">
      {children}
      {own.length > 0 && <SchemaTable fields={own} />}
      {internal.length > 0 && (
        <p className="muted small" data-testid="feast-internal-fields">
          Not shown: Feast's internal {internal.length === 1 ? "field" : "fields"}{" "}
          <code>{internal.map((f) => f.name).join(", ")}</code> (the join key of its placeholder entity, for a view without
          entities).
        </p>
      )}
    </Section>
  );
}
