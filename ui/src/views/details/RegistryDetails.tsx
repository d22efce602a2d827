// The details of a Feast registry object, from its definition: TTL,
// entities, schema, the source's URI, an on-demand view's transformation, what
// it is built from and what uses it.

import { useMemo } from "react";
import { useRegistryObject } from "../../api/queries";
import { KindBadge } from "../../components/Badges";
import { JsonView } from "../../components/JsonView";
import { Failure, Loading } from "../../components/Status";
import { formatTtl } from "../../format";
import { refPatch } from "../../selection";
import type { RegistryNode } from "../../types";
import { definitionOf, findUri, registryFields, registryKind, servedFeatures, transformationCode } from "./definition";
import type { PanelProps } from "./DetailsPanel";
import { namesWithoutInternals } from "./feastInternals";
import { RegistryNodeList } from "./RegistryNodeList";
import { SchemaSection } from "./SchemaTable";
import { Rows, Section, Tags } from "./Section";
import { bool, text } from "./values";

export function RegistryDetails({ selection, drawn, navigate }: PanelProps) {
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
  if (!fetched.data) {
    return (
      <div className="panel-body">
        {head}
        <Loading what="the definition" />
      </div>
    );
  }
  const detail = fetched.data;
  const fields = registryFields(spec);
  const ttl = spec.ttl;
  const source = spec.batch_source ?? spec;
  const uri = findUri(selection.type === "saved_dataset" ? spec.storage : source);
  const udf = transformationCode(spec);
  const services = servedFeatures(selection.type, spec);
  const open = (n: RegistryNode) =>
    navigate(refPatch({ type: n.type, namespace: n.project, name: n.name }), { push: true });
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
            ["Entities", namesWithoutInternals(spec.entities)],
            ["Join key", text(spec.join_key)],
            ["Value type", text(spec.value_type)],
            ["Mode", text(spec.mode)],
            ["Online", bool(spec.online)],
            ["Offline", bool(spec.offline)],
            ["Source type", selection.type === "data_source" ? text(spec.type) : null],
            ["Timestamp field", text(spec.timestamp_field)],
            ["Feature service", text(spec.feature_service_name)],
            ["Join keys", namesWithoutInternals(spec.join_keys)],
            ["Owner", text(spec.owner)],
            ["Tags", spec.tags ? <Tags tags={spec.tags} /> : null],
            ["Created", text(meta.created_timestamp)],
            ["Updated", text(meta.last_updated_timestamp)],
          ]}
        />
      </Section>
      <SchemaSection fields={fields} />
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
        <RegistryNodeList nodes={detail.upstream} none="Nothing upstream in the registry." onOpen={open} />
      </Section>
      <Section title="Used by">
        <RegistryNodeList nodes={detail.downstream} none="Nothing downstream in the registry." onOpen={open} />
      </Section>
      <Section title="Definition">
        <JsonView value={detail.node.object ?? {}} />
      </Section>
    </div>
  );
}
