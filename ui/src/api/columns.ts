// Column lineage: the field-level walk of one dataset (or one of its fields),
// from GET /api/v1/lineage/openlineage/columns.

import { keepPreviousData, useQuery, type QueryClient } from "@tanstack/react-query";
import type { components } from "./schema";
import { withParams } from "./endpoints";
import { get } from "./http";

type Schemas = components["schemas"];
export type ColumnLineage = Schemas["ColumnLineage"];
export type ColumnNode = Schemas["ColumnNode"];
export type ColumnEdge = Schemas["ColumnEdge"];
export type ColumnTransformation = Schemas["ColumnTransformation"];
export type ColumnDirection = ColumnLineage["direction"];

const FRESH_MS = 10_000;

export interface ColumnQuery {
  namespace: string;
  name: string;
  /** One field; null: every field of the dataset. */
  field: string | null;
  direction: ColumnDirection;
  depth: number;
  indirect: boolean;
  /** The column lineage as of this instant (ISO 8601); absent or null: now. */
  asOf?: string | null;
  /** "Seen during": the column edges the runs of this window observed (ISO 8601 bounds; no until: now). */
  since?: string | null;
  until?: string | null;
}

export function fetchColumns(query: ColumnQuery, signal?: AbortSignal): Promise<ColumnLineage> {
  return get(
    "/api/v1/lineage/openlineage/columns",
    {
      query: withParams(
        {
          namespace: query.namespace,
          name: query.name,
          field: query.field,
          direction: query.direction,
          depth: query.depth,
          indirect: query.indirect,
          as_of: query.asOf ?? null,
        },
        { since: query.since ?? null, until: query.until ?? null },
      ),
    },
    signal,
  );
}

/** A dataset's (or field's) column lineage; null: nothing to ask. The one shown stays until the next arrives. */
export function useColumns(query: ColumnQuery | null) {
  return useQuery({
    queryKey: ["columns", query],
    queryFn: ({ signal }) => fetchColumns(query!, signal),
    enabled: query !== null,
    placeholderData: keepPreviousData,
    // The trace prefetchColumns asked for as the page started is not asked for again.
    staleTime: FRESH_MS,
  });
}

/** Asks for a column trace as the page starts (a link to the column view), beside the settings. */
export function prefetchColumns(client: QueryClient, query: ColumnQuery | null): void {
  if (query === null) return;
  void client.prefetchQuery({ queryKey: ["columns", query], queryFn: ({ signal }) => fetchColumns(query, signal) });
}
