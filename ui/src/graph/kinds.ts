// What each kind of node looks like: its label, colour and shape.

import type { EdgeKind } from "./model";

export type VisualKind =
  | "dataset"
  | "job"
  | "feast_job"
  | "data_source"
  | "entity"
  | "feature_view"
  | "on_demand_feature_view"
  | "stream_feature_view"
  | "feature_service"
  | "saved_dataset"
  | "online_store"
  | "missing";

/** The selection, the focus centre and the lit path (styles.css --select): red is for failure only. */
export const SELECT_COLOR = "#4f46e5";
/** A failed run (styles.css --accent). */
export const FAILURE_COLOR = "#ef4444";

/** How each kind of edge is drawn (styles.css's .ledge-*; paint.ts draws the same). */
export const EDGE_SWATCHES: Record<EdgeKind, { color: string; dash: number[] }> = {
  io: { color: "#94a3b8", dash: [] },
  registry: { color: "#94a3b8", dash: [] },
  parent: { color: "#a78bfa", dash: [6, 4] },
  same: { color: "#0f766e", dash: [2, 4] },
  derived: { color: "#cbd5e1", dash: [] },
  jobjob: { color: "#d97706", dash: [10, 3, 2, 3] },
  hidden: { color: "#64748b", dash: [3, 3] },
};

/** What each kind of edge means: a short label (the legend) and a sentence (hover). */
export const EDGE_MEANINGS: Record<keyof typeof EDGE_SWATCHES, { label: string; hint: string }> = {
  io: { label: "reads · writes", hint: "A job reads a dataset, or writes one" },
  registry: { label: "built from", hint: "A Feast object is defined from another (the registry)" },
  parent: {
    label: "parent → child job",
    hint: "A parent job (an Airflow DAG, a dbt run, a Spark application) started this child job: its runs name the parent's run (the parent facet)",
  },
  same: { label: "same data", hint: "Two names for the same data (a symlinks facet, or the same data source URI)" },
  // (Never "hidden": under a key that word is access filtering, what the caller may not see.)
  derived: {
    label: "through a job filtered out",
    hint: "Inputs joined to outputs directly: the job between them is not shown by the Jobs filter",
  },
  jobjob: { label: "job → job", hint: "A job feeds another job (explicit lineage: a lineage facet or jobDependencies)" },
  hidden: {
    label: "through hidden nodes",
    hint: "The data goes on through nodes of namespaces your key may not see: they are neither drawn nor named",
  },
};

export type Shape = "box" | "pill" | "round" | "cylinder" | "tab";

export interface KindStyle {
  label: string;
  color: string; // accent: border and badge
  fill: string; // background
  shape: Shape;
}

export const KIND_STYLES: Record<VisualKind, KindStyle> = {
  dataset: { label: "Dataset", color: "#64748b", fill: "#f8fafc", shape: "cylinder" },
  job: { label: "Job", color: "#334155", fill: "#e2e8f0", shape: "pill" },
  feast_job: { label: "Feast job", color: "#b45309", fill: "#fef3c7", shape: "pill" },
  data_source: { label: "Data source", color: "#0f766e", fill: "#ccfbf1", shape: "cylinder" },
  entity: { label: "Entity", color: "#7c3aed", fill: "#ede9fe", shape: "round" },
  feature_view: { label: "Feature view", color: "#1d4ed8", fill: "#dbeafe", shape: "box" },
  on_demand_feature_view: {
    label: "On-demand feature view",
    color: "#c2410c",
    fill: "#ffedd5",
    shape: "box",
  },
  stream_feature_view: {
    label: "Stream feature view",
    color: "#0369a1",
    fill: "#e0f2fe",
    shape: "box",
  },
  feature_service: { label: "Feature service", color: "#15803d", fill: "#dcfce7", shape: "tab" },
  saved_dataset: { label: "Saved dataset", color: "#be185d", fill: "#fce7f3", shape: "cylinder" },
  online_store: { label: "Online store", color: "#a16207", fill: "#fef9c3", shape: "cylinder" },
  missing: { label: "Missing", color: "#dc2626", fill: "#fef2f2", shape: "box" },
};

export const FEAST_DATASET_KINDS = new Set<string>([
  "data_source",
  "entity",
  "feature_view",
  "on_demand_feature_view",
  "stream_feature_view",
  "feature_service",
  "saved_dataset",
  "online_store",
]);

export function isVisualKind(value: string): value is VisualKind {
  return value in KIND_STYLES;
}

/** Kinds in the order the legend lists them. */
export const LEGEND_ORDER: VisualKind[] = [
  "dataset",
  "job",
  "feast_job",
  "data_source",
  "entity",
  "feature_view",
  "on_demand_feature_view",
  "stream_feature_view",
  "feature_service",
  "saved_dataset",
  "online_store",
];
