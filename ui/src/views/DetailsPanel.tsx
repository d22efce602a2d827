// The details panel: everything known about one node. OpenLineage nodes show
// their facets (schema, Feast metadata, documentation, data source, aliases)
// and, for jobs, the run history; registry nodes show their Feast definition.

import { useMemo, type ReactNode } from "react";
import { useNode, useRegistryObject } from "../api/queries";
import { KindBadge } from "../components/Badges";
import { JsonView } from "../components/JsonView";
import { Failure, Loading } from "../components/Status";
import { formatTime, formatTtl, producerLabel } from "../format";
import type { Alias, LNode } from "../graph/model";
import { feastObjectName, olKind } from "../graph/model";
import { isVisualKind, type VisualKind } from "../graph/kinds";
import type { Patch, Route } from "../route";
import { refPatch, type Selection } from "../selection";
import type { Facets, RegistryNode, SchemaField } from "../types";
import { RunHistory } from "./RunHistory";

export interface PanelProps {
  selection: Selection;
  /** The node as drawn, when the graph holds it (with its aliases). */
  drawn: LNode | null;
  route: Route;
  navigate: (patch: Patch, options?: { push?: boolean }) => void;
  onClose: () => void;
  consumerEnabled: boolean;
}

export function DetailsPanel(props: PanelProps) {
  return (
    <aside className="panel" aria-label="Details" data-testid="details-panel">
      <button type="button" className="panel-close" onClick={props.onClose} aria-label="Close details">
        ×
      </button>
      {props.selection.source === "registry" ? <RegistryDetails {...props} /> : <OpenLineageDetails {...props} />}
    </aside>
  );
}

function Section({ title, children, testid }: { title: string; children: ReactNode; testid?: string }) {
  return (
    <section className="panel-section" data-testid={testid}>
      <h3>{title}</h3>
      {children}
    </section>
  );
}

function Rows({ rows }: { rows: [string, ReactNode][] }) {
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

function Tags({ tags }: { tags: unknown }) {
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

function list(value: unknown): string | null {
  if (Array.isArray(value)) return value.length ? value.map(String).join(", ") : null;
  return null;
}

function bool(value: unknown): string | null {
  return typeof value === "boolean" ? (value ? "yes" : "no") : null;
}

function text(value: unknown): string | null {
  if (value === null || value === undefined || value === "") return null;
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

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

function AliasList({ aliases, navigate }: { aliases: Alias[]; navigate: PanelProps["navigate"] }) {
  return (
    <ul className="aliases" data-testid="aliases">
      {aliases.map((a) => (
        <li key={a.id}>
          <button
            type="button"
            className="link"
            onClick={() => navigate({ tab: "datasets", q: a.name, offset: null }, { push: true })}
            title="Find it among the datasets"
          >
            <span className="mono">{a.namespace}</span> <span className="mono strong">{a.name}</span>
          </button>{" "}
          <span className="muted">
            {a.type ? `${a.type}, ` : ""}
            {a.via === "symlink" ? "symlink" : "same dataSource URI"}
            {a.node?.producer ? `, from ${producerLabel(a.node.producer)}` : ""}
          </span>
        </li>
      ))}
    </ul>
  );
}

/** Feast metadata from the feast_* facets, labelled for people. */
function feastRows(facets: Facets): { name: string; rows: [string, ReactNode][] } | null {
  const key = Object.keys(facets).find((k) => k.startsWith("feast_") && k !== "feast_project" && k !== "feast_job_kind");
  if (!key) return null;
  const f = facets[key] as Record<string, unknown>;
  const rows: [string, ReactNode][] = [
    ["TTL", "ttl_seconds" in f ? formatTtl(f.ttl_seconds) : null],
    ["Entities", list(f.entities)],
    ["Join keys", list(f.join_keys)],
    ["Value type", text(f.value_type)],
    ["Mode", text(f.mode)],
    ["Online", bool(f.online_enabled)],
    ["Offline", bool(f.offline_enabled)],
    ["Source type", text(f.source_type)],
    ["Timestamp field", text(f.timestamp_field)],
    ["Created timestamp field", text(f.created_timestamp_field)],
    ["Feature views", list(f.feature_views)],
    ["Feature count", text(f.feature_count)],
    ["Features", list(f.features)],
    ["Feature service", text(f.feature_service_name)],
    ["Store type", text(f.store_type)],
    ["Feature view", text(f.feature_view)],
    ["Logging", bool(f.logging_enabled)],
    ["Owner", text(f.owner)],
    ["Tags", f.tags && Object.keys(f.tags as object).length ? <Tags tags={f.tags} /> : null],
  ];
  return { name: key, rows };
}

function OpenLineageDetails({ selection, drawn, navigate, route }: PanelProps) {
  const known = drawn?.ol && drawn.ol.namespace === selection.namespace && drawn.ol.name === selection.name ? drawn.ol : null;
  const kind = selection.type === "job" ? "job" : "dataset";
  const fetched = useNode(known ? null : { type: kind, namespace: selection.namespace, name: selection.name });
  const node = known ?? fetched.data;
  if (!node) {
    if (fetched.error) return <Failure error={fetched.error} what="this node" onRetry={fetched.refetch} />;
    return <Loading what="details" />;
  }
  const facets = node.facets ?? {};
  const doc = (facets.documentation as { description?: string } | undefined)?.description;
  const uri = node.datasource_uri ?? (facets.dataSource as { uri?: string } | undefined)?.uri;
  const sql = (facets.sql as { query?: string } | undefined)?.query;
  const feast = feastRows(facets);
  const aliases = drawn?.ol?.id === node.id ? drawn.aliases : [];
  // A Feast source may carry no schema while the file it reads does.
  const schemaFrom = node.schema?.length ? null : aliases.find((a) => a.node?.schema?.length) ?? null;
  const schema = node.schema?.length ? node.schema : (schemaFrom?.node?.schema ?? null);
  const jobType = facets.jobType as { jobType?: string; integration?: string; processingType?: string } | undefined;
  const sourceCode = facets.sourceCodeLocation as { url?: string; repoUrl?: string; path?: string } | undefined;
  const shownFacets = new Set(["documentation", "dataSource", "schema", "sql", "symlinks", "jobType", "sourceCodeLocation"]);
  if (feast) shownFacets.add(feast.name);
  const otherFacets = Object.fromEntries(Object.entries(facets).filter(([k]) => !shownFacets.has(k)));
  return (
    <div className="panel-body" data-node-id={node.id}>
      <header className="panel-head">
        <KindBadge kind={olKind(node)} />
        <h2 className="panel-title" title={node.name}>
          {feastObjectName(node) ?? node.name}
        </h2>
        <div className="panel-sub mono">
          {node.namespace} · {node.name}
        </div>
        <div className="panel-meta">
          {node.producer && <span title={node.producer}>Producer: {producerLabel(node.producer)}</span>}
          {node.updated_at && <span>Updated {formatTime(node.updated_at)}</span>}
        </div>
        <div className="panel-actions">
          <button
            type="button"
            className="btn"
            onClick={() =>
              navigate(
                {
                  tab: "lineage",
                  view: null,
                  ...refPatch({ type: node.kind, namespace: node.namespace, name: node.name }),
                  ...refPatch({ type: node.kind, namespace: node.namespace, name: node.name }, "focus"),
                },
                { push: true },
              )
            }
          >
            Show lineage
          </button>
          {node.feast?.project && node.feast.type && node.kind === "dataset" && node.feast.type !== "online_store" && (
            <button
              type="button"
              className="btn"
              onClick={() =>
                navigate(
                  {
                    tab: "lineage",
                    view: "feast",
                    node_type: node.feast!.type,
                    node_ns: node.feast!.project,
                    node: feastObjectName(node) ?? node.feast!.name,
                  },
                  { push: true },
                )
              }
            >
              In Feast registry view
            </button>
          )}
          {node.kind === "job" && (
            <button
              type="button"
              className="btn"
              onClick={() =>
                navigate(
                  { tab: "events", ns: node.namespace, job: node.name, offset: null, type: null, run_id: null },
                  { push: true },
                )
              }
            >
              Events
            </button>
          )}
        </div>
      </header>
      {doc && (
        <Section title="Documentation">
          <p className="doc">{doc}</p>
        </Section>
      )}
      {aliases.length > 0 && (
        <Section title={`Aliases (${aliases.length})`} testid="aliases-section">
          <p className="muted small">The same data under other names, drawn as this one node.</p>
          <AliasList aliases={aliases} navigate={navigate} />
        </Section>
      )}
      {uri && (
        <Section title="Data source">
          <div className="mono break" data-testid="datasource-uri">
            {uri}
          </div>
        </Section>
      )}
      {feast && (
        <Section title="Feast" testid="feast-facets">
          <Rows rows={feast.rows} />
        </Section>
      )}
      {schema && schema.length > 0 && (
        <Section title={`Schema (${schema.length} fields)`}>
          {schemaFrom && (
            <p className="muted small">As reported for the alias {schemaFrom.name}.</p>
          )}
          <SchemaTable fields={schema} />
        </Section>
      )}
      {node.kind === "job" && (
        <>
          {(jobType || sourceCode) && (
            <Section title="Job">
              <Rows
                rows={[
                  ["Type", text(jobType?.jobType)],
                  ["Integration", text(jobType?.integration)],
                  ["Processing", text(jobType?.processingType)],
                  ["Source code", text(sourceCode?.url ?? sourceCode?.repoUrl)],
                  ["Path", text(sourceCode?.path)],
                ]}
              />
            </Section>
          )}
          {sql && (
            <Section title="SQL">
              <pre className="code">{sql}</pre>
            </Section>
          )}
          <Section title="Run history" testid="run-history">
            <RunHistory key={node.id} namespace={node.namespace} name={node.name} route={route} navigate={navigate} />
          </Section>
        </>
      )}
      {Object.keys(otherFacets).length > 0 && (
        <Section title="Other facets">
          <JsonView value={otherFacets} />
        </Section>
      )}
    </div>
  );
}

function registryKind(type: string, missing: boolean | undefined): VisualKind {
  if (missing) return "missing";
  return isVisualKind(type) ? type : "dataset";
}

interface Definition {
  spec: Record<string, unknown>;
  meta: Record<string, unknown>;
}

function definitionOf(object: Record<string, unknown> | null | undefined): Definition {
  if (!object) return { spec: {}, meta: {} };
  const spec = (object.spec as Record<string, unknown> | undefined) ?? object;
  const meta = (object.meta as Record<string, unknown> | undefined) ?? {};
  return { spec, meta };
}

/** The first `uri`, `path` or `file_url` anywhere in a definition. */
function findUri(value: unknown, depth = 0): string | null {
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

function registryFields(spec: Record<string, unknown>): SchemaField[] {
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

function RegistryDetails({ selection, drawn, navigate }: PanelProps) {
  const fetched = useRegistryObject(selection.namespace, selection.type, selection.name);
  const regNode: RegistryNode | undefined = fetched.data?.node ?? drawn?.reg;
  const kind = registryKind(selection.type, regNode?.missing);
  const { spec, meta } = useMemo(() => definitionOf(fetched.data?.node.object), [fetched.data]);
  const head = (
    <header className="panel-head">
      <KindBadge kind={kind} />
      <h2 className="panel-title">{selection.name}</h2>
      <div className="panel-sub">Feast project {selection.namespace} · from the registry</div>
      <div className="panel-actions">
        <button
          type="button"
          className="btn"
          onClick={() =>
            navigate(
              refPatch({ type: selection.type, namespace: selection.namespace, name: selection.name }, "focus"),
              { push: true },
            )
          }
        >
          Show lineage
        </button>
      </div>
    </header>
  );
  if (fetched.error) {
    return (
      <div className="panel-body">
        {head}
        <Failure error={fetched.error} what="the definition" onRetry={fetched.refetch} />
      </div>
    );
  }
  if (!fetched.data) return <div className="panel-body">{head}<Loading what="the definition" /></div>;
  const detail = fetched.data;
  const fields = registryFields(spec);
  const ttl = spec.ttl;
  const source = spec.batch_source ?? spec;
  const uri = findUri(selection.type === "saved_dataset" ? spec.storage : source);
  const transformation = (spec.feature_transformation as Record<string, { body_text?: string }> | undefined) ?? undefined;
  const udf = transformation ? Object.values(transformation).find((t) => t?.body_text)?.body_text : undefined;
  const services = Array.isArray(spec.features) && selection.type === "feature_service"
    ? (spec.features as { feature_view_name?: string; feature_columns?: unknown[] }[])
    : null;
  const goTo = (n: RegistryNode) =>
    navigate({ node_type: n.type, node_ns: n.project, node: n.name, run: null }, { push: true });
  return (
    <div className="panel-body" data-node-id={detail.node.id}>
      {head}
      {typeof spec.description === "string" && spec.description && (
        <Section title="Documentation">
          <p className="doc">{spec.description}</p>
        </Section>
      )}
      {uri && (
        <Section title="Data source">
          <div className="mono break" data-testid="datasource-uri">
            {uri}
          </div>
        </Section>
      )}
      <Section title="Feast" testid="feast-facets">
        <Rows
          rows={[
            ["TTL", ttl !== undefined ? formatTtl(ttl) : null],
            ["Entities", list(spec.entities)],
            ["Join key", text(spec.join_key)],
            ["Value type", text(spec.value_type)],
            ["Mode", text(spec.mode)],
            ["Online", bool(spec.online)],
            ["Offline", bool(spec.offline)],
            ["Source type", selection.type === "data_source" ? text(spec.type) : null],
            ["Timestamp field", text(spec.timestamp_field)],
            ["Feature service", text(spec.feature_service_name)],
            ["Join keys", list(spec.join_keys)],
            ["Owner", text(spec.owner)],
            ["Tags", spec.tags ? <Tags tags={spec.tags} /> : null],
            ["Created", text(meta.created_timestamp)],
            ["Updated", text(meta.last_updated_timestamp)],
          ]}
        />
      </Section>
      {fields.length > 0 && (
        <Section title={`Schema (${fields.length} fields)`}>
          <SchemaTable fields={fields} />
        </Section>
      )}
      {services && (
        <Section title="Features served">
          <ul className="plain">
            {services.map((s, i) => (
              <li key={i}>
                <span className="strong">{s.feature_view_name}</span>{" "}
                <span className="muted">{Array.isArray(s.feature_columns) ? `${s.feature_columns.length} features` : ""}</span>
              </li>
            ))}
          </ul>
        </Section>
      )}
      {udf && (
        <Section title="Transformation">
          <pre className="code">{udf}</pre>
        </Section>
      )}
      <Section title="Built from">
        {detail.upstream.length ? (
          <ul className="plain">
            {detail.upstream.map((n) => (
              <li key={n.id}>
                <KindBadge kind={registryKind(n.type, n.missing)} />{" "}
                <button type="button" className="link" onClick={() => goTo(n)}>
                  {n.name}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">Nothing upstream in the registry.</p>
        )}
      </Section>
      <Section title="Used by">
        {detail.downstream.length ? (
          <ul className="plain">
            {detail.downstream.map((n) => (
              <li key={n.id}>
                <KindBadge kind={registryKind(n.type, n.missing)} />{" "}
                <button type="button" className="link" onClick={() => goTo(n)}>
                  {n.name}
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">Nothing downstream in the registry.</p>
        )}
      </Section>
      <Section title="Definition">
        <JsonView value={detail.node.object ?? {}} />
      </Section>
    </div>
  );
}
