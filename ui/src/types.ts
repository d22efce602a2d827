// The server's JSON shapes, under the names the UI uses: aliases of the types
// generated from its OpenAPI document (api/schema.d.ts, by
// scripts/api_types.sh, from src/feast_lineage/consumer/schemas.py).

import type { components } from "./api/schema";

type Schemas = components["schemas"];

export type UiSettings = Schemas["UiSettings"];

export type FeastObject = Schemas["FeastObject"];
export type SchemaField = Schemas["SchemaField"];
export type GraphNode = Schemas["GraphNode"];
export type GraphEdge = Schemas["GraphEdge"];
export type DerivedEdge = Schemas["DerivedEdge"];
export type GraphSymlink = Schemas["GraphSymlink"];
export type GraphPage = Schemas["GraphPage"];
export type Subgraph = Schemas["Subgraph"];
/** Facet name -> its payload (a JSON object). */
export type Facets = GraphNode["facets"];
export type NodeKind = GraphNode["kind"];
export type Direction = Subgraph["direction"];

export type NamespaceItem = Schemas["NamespaceItem"];
export type NamespaceList = Schemas["NamespaceList"];
export type JobItem = Schemas["JobItem"];
export type LatestRun = Schemas["LatestRun"];
export type JobPage = Schemas["JobPage"];
export type DatasetItem = Schemas["DatasetItem"];
export type DatasetPage = Schemas["DatasetPage"];
/** A row of the Jobs or Datasets tab: a job, or a dataset (with its data source and Feast object). */
export interface CatalogItem extends Partial<Pick<DatasetItem, "datasource_uri" | "feast">> {
  id: string;
  namespace: string;
  name: string;
  producer: string | null;
  updated_at_iso: string | null;
  /** A job's latest run (null: it never ran; absent for a dataset). */
  latest_run?: LatestRun | null;
}
export type CatalogPage = Omit<JobPage, "jobs"> & { items: CatalogItem[] };

/** A job of the catalog as a row of the Jobs tab. */
export const jobRow = (job: JobItem): CatalogItem => ({
  id: job.id,
  namespace: job.job_namespace,
  name: job.job_name,
  producer: job.producer,
  updated_at_iso: job.updated_at_iso,
  latest_run: job.latest_run ?? null,
});

/** A dataset of the catalog as a row of the Datasets tab. */
export const datasetRow = (dataset: DatasetItem): CatalogItem => ({
  id: dataset.id,
  namespace: dataset.dataset_namespace,
  name: dataset.dataset_name,
  producer: dataset.producer,
  // 0 (the epoch) when not known: as of an instant, or a dataset only named.
  updated_at_iso: dataset.updated_at ? dataset.updated_at_iso : null,
  datasource_uri: dataset.datasource_uri,
  feast: dataset.feast,
});

export type RunItem = Schemas["RunItem"];
export type RunPage = Schemas["RunPage"];
export type RunDataset = Schemas["RunDataset"];
export type RunDetail = Schemas["RunDetail"];

export type EventItem = Schemas["EventItem"];
export type EventPage = Schemas["EventPage"];
/** An OpenLineage event as stored. */
export type StoredEvent = Schemas["StoredEvent"];

export type RegistryNode = Schemas["RegistryNode"];
export type RegistryEdge = Schemas["RegistryEdge"];
export type RegistryLineage = Schemas["RegistryLineage"];
export type RegistryObject = Schemas["RegistryObject"];

export type HealthState = GraphNode["state"];
export type NodeHealth = Schemas["NodeHealth"];
export type HealthCause = Schemas["HealthCause"];
export type HealthProblem = Schemas["HealthProblem"];
export type HealthPage = Schemas["HealthPage"];
export type Reached = Schemas["Reached"];
export type Impact = Schemas["Impact"];
export type ReachGroups = Schemas["ReachGroups"];
export type DatasetVersionItem = Schemas["DatasetVersionItem"];
export type DatasetVersionDetail = Schemas["DatasetVersionDetail"];
export type VersionField = Schemas["VersionField"];
export type SchemaDiff = Schemas["SchemaDiff"];
export type JobVersionItem = Schemas["JobVersionItem"];
export type JobVersionDetail = Schemas["JobVersionDetail"];
export type LineageDiff = Schemas["LineageDiff"];
export type DiffJobChange = Schemas["JobChange"];
export type DiffSchemaChange = Schemas["SchemaChange"];
export type RunTreeNode = Schemas["RunTreeNode"];
export type DatasetRef = Schemas["DatasetRef"];
