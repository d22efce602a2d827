// The server's JSON shapes (see src/feast_lineage/consumer/schemas.py).

export interface UiSettings {
  consumer_enabled: boolean;
  registry_enabled: boolean;
  project: string | null;
  version: string;
}

export interface FeastObject {
  project: string | null;
  type: string | null;
  name: string;
}

export interface SchemaField {
  name: string;
  type?: string | null;
  description?: string | null;
}

export type Facets = Record<string, unknown>;

export interface GraphNode {
  id: string;
  kind: "job" | "dataset";
  namespace: string;
  name: string;
  producer: string | null;
  created_at: string | null;
  updated_at: string | null;
  datasource_uri?: string | null;
  facets: Facets;
  schema?: SchemaField[] | null;
  feast?: FeastObject | null;
  depth?: number | null;
}

export interface GraphEdge {
  source: string;
  target: string;
  type: "input" | "output" | "parent" | "root" | "symlink";
}

export interface DerivedEdge {
  source: string;
  target: string;
  via: string;
}

export interface GraphSymlink {
  dataset: string;
  alias: string;
  alias_namespace: string;
  alias_name: string;
  alias_type: string | null;
  source: "symlink" | "datasource";
}

export interface GraphPage {
  nodes: GraphNode[];
  edges: GraphEdge[];
  derived_edges: DerivedEdge[];
  symlinks: GraphSymlink[];
  total_nodes: number;
  total_edges: number;
  limit: number;
  offset: number;
}

export interface Subgraph {
  center: string;
  depth: number;
  direction: Direction;
  nodes: GraphNode[];
  edges: GraphEdge[];
  derived_edges: DerivedEdge[];
  symlinks: GraphSymlink[];
  truncated: boolean;
  limit: number;
}

export type Direction = "upstream" | "downstream" | "both";

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

export interface NamespaceItem {
  namespace: string;
  jobs: number;
  datasets: number;
}

export interface JobItem {
  id: string;
  namespace: string;
  name: string;
  producer: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface DatasetItem extends JobItem {
  datasource_uri: string | null;
  feast: FeastObject | null;
}

export interface RunItem {
  run_id: string;
  job_namespace: string;
  job_name: string;
  state: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  parent_run_id: string | null;
}

export interface RunDataset {
  namespace: string;
  name: string;
  facets?: Facets | null;
}

export interface RunDetail extends RunItem {
  root_run_id: string | null;
  facets: Facets;
  inputs: RunDataset[];
  outputs: RunDataset[];
  child_run_ids: string[];
}

export interface EventItem {
  id: number;
  event_type: string | null;
  event_time: string;
  received_at: string;
  kind: string;
  run_id: string | null;
  event: Record<string, unknown>;
}

export interface RegistryNode {
  id: string;
  type: string;
  name: string;
  project: string;
  missing: boolean;
  object?: Record<string, unknown> | null;
}

export interface RegistryEdge {
  source: string;
  target: string;
  source_type: string;
  target_type: string;
}

export interface RegistryLineage {
  projects: string[];
  nodes: RegistryNode[];
  edges: RegistryEdge[];
}

export interface RegistryObject {
  project: string;
  node: RegistryNode;
  upstream: RegistryNode[];
  downstream: RegistryNode[];
  edges: RegistryEdge[];
}
