// Reading an OpenLineage node's facets for its details panel. Facets are
// free-form JSON objects: a field of an unexpected type shows as nothing.

import type { ReactNode } from "react";
import { formatTtl } from "../../format";
import type { Facets } from "../../types";
import { namesWithoutInternals } from "./feastInternals";
import { Tags } from "./Section";
import { bool, list, text } from "./values";

/** A facet's field, when it is a string. */
export function facetString(facets: Facets, facet: string, field: string): string | undefined {
  const value = facets[facet]?.[field];
  return typeof value === "string" ? value : undefined;
}

/** Feast metadata from the node's feast_* facet, labelled for people; `name` is the facet's. */
export function feastRows(facets: Facets): { name: string; rows: [string, ReactNode][] } | null {
  const key = Object.keys(facets).find((k) => k.startsWith("feast_") && k !== "feast_project" && k !== "feast_job_kind");
  if (!key) return null;
  const f = facets[key];
  const rows: [string, ReactNode][] = [
    ["TTL", "ttl_seconds" in f ? formatTtl(f.ttl_seconds) : null],
    ["Entities", namesWithoutInternals(f.entities)],
    ["Join keys", namesWithoutInternals(f.join_keys)],
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

/** Facets the panel shows in sections of their own (the rest go under "Other facets"). */
export const SHOWN_FACETS = ["documentation", "dataSource", "schema", "sql", "symlinks", "jobType", "sourceCodeLocation"];
