// The details of an OpenLineage job or dataset: what its facets say
// (documentation, aliases, data source, Feast metadata, schema; a job's type,
// SQL and runs), then every other facet as JSON.

import { useNode, type NodeRef } from "../../api/queries";
import { answersNow, historyQuery, timeView } from "../../history/time";
import { JsonView } from "../../components/JsonView";
import { Failure, Loading } from "../../components/Status";
import { ColumnCounts } from "../columns/ColumnCounts";
import { BeforeHorizon, horizonOf } from "../lineage/BeforeHorizon";
import { isNotThen, NotThen } from "../lineage/NotThen";
import { AliasList } from "./AliasList";
import { DatasetSections } from "./DatasetSections";
import { DatasetVersions } from "./DatasetVersions";
import type { PanelProps } from "./DetailsPanel";
import { facetString, feastRows, SHOWN_FACETS } from "./facets";
import { Freshness } from "./Freshness";
import { JobSections } from "./JobSections";
import { OpenLineageHead } from "./OpenLineageHead";
import { SchemaSection } from "./SchemaTable";
import { ChangeSection } from "./ChangeSection";
import { Rows, Section } from "./Section";

export function OpenLineageDetails({ selection, drawn, navigate, route, schemaChange, jobChange }: PanelProps) {
  const known = drawn?.ol && drawn.ol.namespace === selection.namespace && drawn.ol.name === selection.name ? drawn.ol : null;
  const kind = selection.type === "job" ? "job" : "dataset";
  const time = timeView(route);
  // As of an instant a dataset of the graph carries the facets stated last by then only; its
  // details, asked alone, carry them as they were then (stated again since or not).
  const exactThen = kind === "dataset" && time.asOf !== null && !answersNow(time);
  // (A reversed window is not asked for: the graph area says how to fix it.)
  const asked: NodeRef | null =
    (known && !exactThen) || time.reversed ? null : { type: kind, namespace: selection.namespace, name: selection.name };
  const fetched = useNode(asked, historyQuery(time));
  const node = fetched.data ?? known;
  if (!node) {
    if (time.reversed) {
      const fix = time.changesReversed ? "“Changes since” (it must be before “As of”)" : "the “Seen during” window";
      return <p className="muted small panel-body">Fix {fix} to see this node.</p>;
    }
    const refused = horizonOf(fetched.error, time);
    if (refused) return <BeforeHorizon {...refused} time={time} navigate={navigate} />;
    if (fetched.error && isNotThen(fetched.error, time)) {
      return <NotThen name={selection.name} time={time} navigate={navigate} />;
    }
    if (fetched.error) return <Failure error={fetched.error} what="this node" onRetry={fetched.refetch} />;
    return <Loading what="details" />;
  }
  const facets = node.facets ?? {};
  const doc = facetString(facets, "documentation", "description");
  const uri = node.datasource_uri ?? facetString(facets, "dataSource", "uri");
  const feast = feastRows(facets);
  // Its node's other names (a node drawn by a name only a symlink gives lists this dataset).
  const aliases =
    drawn?.ol?.id === node.id
      ? [...(drawn.named ? [drawn.named] : []), ...drawn.aliases].filter((a) => a.id !== node.id)
      : [];
  // A Feast source may carry no schema while the file it reads does.
  const schemaFrom = node.schema_fields?.length ? null : (aliases.find((a) => a.node?.schema_fields?.length) ?? null);
  const schema = node.schema_fields?.length ? node.schema_fields : (schemaFrom?.node?.schema_fields ?? null);
  const shownFacets = new Set(SHOWN_FACETS);
  if (feast) shownFacets.add(feast.name);
  const otherFacets = Object.fromEntries(Object.entries(facets).filter(([k]) => !shownFacets.has(k)));
  return (
    <div className="panel-body" data-node-id={node.id}>
      <OpenLineageHead node={node} navigate={navigate} />
      <Freshness node={node} historical={!answersNow(time)} />
      {drawn?.change && drawn.ol?.id === node.id && (
        <ChangeSection
          change={drawn.change}
          since={time.changesSince ?? ""}
          to={time.asOf}
          schemaChange={schemaChange ?? null}
          jobChange={jobChange ?? null}
          words={drawn.changeWords ?? null}
          navigate={navigate}
        />
      )}
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
      {schema && (
        <SchemaSection fields={schema}>
          {schemaFrom && <p className="muted small">As reported for the alias {schemaFrom.name}.</p>}
        </SchemaSection>
      )}
      {node.kind === "dataset" && (
        <DatasetSections key={node.id} namespace={node.namespace} name={node.name} asOf={time.asOf} navigate={navigate} />
      )}
      {node.kind === "dataset" && node.has_column_lineage && (
        <Section title="Column lineage" testid="column-lineage-section">
          <ColumnCounts namespace={node.namespace} name={node.name} schema={schema ?? []} asOf={time.asOf} navigate={navigate} />
        </Section>
      )}
      {node.kind === "dataset" && (
        <Section title="Versions" testid="dataset-versions-section">
          <DatasetVersions
            key={node.id}
            namespace={node.namespace}
            name={node.name}
            asOf={time.asOf}
            currentThen={time.asOf ? (node.version ?? null) : null}
            route={route}
            navigate={navigate}
          />
        </Section>
      )}
      {node.kind === "job" && <JobSections node={node} asOf={time.asOf} route={route} navigate={navigate} />}
      {Object.keys(otherFacets).length > 0 && (
        <Section title="Other facets">
          <JsonView value={otherFacets} />
        </Section>
      )}
    </div>
  );
}
