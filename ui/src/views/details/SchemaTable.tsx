// A schema's fields: name, type and description.

import type { SchemaField } from "../../types";

export function SchemaTable({ fields }: { fields: SchemaField[] }) {
  return (
    <table className="table schema" data-testid="schema-table">
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
