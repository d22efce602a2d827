// The pieces of a details panel: a titled section, rows of labelled values,
// tags.

import type { ReactNode } from "react";

export function Section({ title, children, testid }: { title: string; children: ReactNode; testid?: string }) {
  return (
    <section className="panel-section" data-testid={testid}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

/** Label and value pairs; those without a value are left out. */
export function Rows({ rows }: { rows: [string, ReactNode][] }) {
  const shown = rows.filter(([, value]) => value !== null && value !== undefined && value !== "");
  if (shown.length === 0) return null;
  return (
    <dl className="rows">
      {shown.map(([key, value]) => (
        <div className="row" key={key}>
          <dt>{key}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Tags({ tags }: { tags: unknown }) {
  if (!tags || typeof tags !== "object") return null;
  const entries = Object.entries(tags as Record<string, unknown>);
  if (entries.length === 0) return null;
  return (
    <span className="tags">
      {entries.map(([k, v]) => (
        <span className="tag" key={k}>
          {k}={String(v)}
        </span>
      ))}
    </span>
  );
}
