// What each kind of node looks like: its label, colour and shape.

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
