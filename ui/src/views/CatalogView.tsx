// The Jobs and Datasets tabs: searchable, paged lists; a row opens the
// details panel. "As of" (the URL's as_of, as on the Lineage tab) lists them
// as they stood at an instant, and the details panel answers as of then too.

import type { ColumnDef } from "@tanstack/react-table";
import { useCatalog, useNamespaces } from "../api/queries";
import { KindBadge, StateBadge } from "../components/Badges";
import { openableRow } from "../components/openableRow";
import { Pager } from "../components/Pager";
import { SortableTable } from "../components/SortableTable";
import { Empty, Failure, Loading } from "../components/Status";
import { FEAST_DATASET_KINDS, isVisualKind } from "../graph/kinds";
import { Instant, Time, ZonedHeader } from "../components/Time";
import { formatDuration, producerLabel } from "../format";
import { InstantField } from "../components/InstantField";
import { focusWhenShown } from "../focus";
import { useCanonicalUrl } from "../hooks/useCanonicalUrl";
import { useDraft } from "../hooks/useDraft";
import { useTimeLink } from "../hooks/useTimeLink";
import { shownInstant, timeView, typedInstant } from "../history/time";
import { formatInstant } from "../format";
import { pageOffset, type Navigate, type Route } from "../route";
import { refPatch, selectionOf } from "../selection";
import type { CatalogItem } from "../types";
import { DetailsPanel } from "./details/DetailsPanel";
import { TimeLinkNote } from "./lineage/TimeLinkNote";

const LIMIT = 50;

/** The Lineage tab's time keys, which these tabs leave out (null: no key). */
const LINEAGE_ONLY_TIMES = { seen: null, seen_since: null, seen_until: null, changes_since: null };

function withoutLineageTimes(route: Route): Route {
  const own: Record<string, string> = { ...route };
  for (const key of Object.keys(LINEAGE_ONLY_TIMES)) delete own[key];
  return own;
}

// Column ids are the server's sort keys (GET /jobs and /datasets ?sort=).
const NAME: ColumnDef<CatalogItem, unknown> = {
  id: "name",
  header: "Name",
  cell: ({ row: { original: item } }) => (
    <>
      <div className="strong">{item.name}</div>
      {item.datasource_uri && <div className="mono small muted break">{item.datasource_uri}</div>}
    </>
  ),
};
const NAMESPACE: ColumnDef<CatalogItem, unknown> = {
  id: "namespace",
  header: "Namespace",
  cell: ({ row }) => <span className="mono small">{row.original.namespace}</span>,
};
const PRODUCER: ColumnDef<CatalogItem, unknown> = {
  id: "producer",
  header: "Producer",
  cell: ({ row }) => <span className="small" title={row.original.producer ?? ""}>{producerLabel(row.original.producer)}</span>,
};
const UPDATED: ColumnDef<CatalogItem, unknown> = {
  id: "updated",
  header: () => <ZonedHeader label="Updated" />,
  cell: ({ row }) => (
    <span className="small nowrap">
      <Time iso={row.original.updated_at_iso} />
    </span>
  ),
};

const JOB_COLUMNS: ColumnDef<CatalogItem, unknown>[] = [
  NAME,
  NAMESPACE,
  {
    id: "latest_state",
    header: "Latest run",
    cell: ({ row }) => (row.original.latest_run ? <StateBadge state={row.original.latest_run.state} /> : <span className="muted small">never ran</span>),
  },
  {
    id: "latest_duration",
    header: "Duration",
    cell: ({ row }) => <span className="small nowrap">{formatDuration(row.original.latest_run?.duration_ms)}</span>,
  },
  {
    id: "latest_started",
    header: () => <ZonedHeader label="Started" />,
    cell: ({ row }) => (
      <span className="small nowrap">
        <Time iso={row.original.latest_run?.started_at_iso} />
      </span>
    ),
  },
  PRODUCER,
  UPDATED,
];

const DATASET_COLUMNS: ColumnDef<CatalogItem, unknown>[] = [
  NAME,
  NAMESPACE,
  {
    id: "kind",
    header: "Kind",
    cell: ({ row }) => {
      const feastType = row.original.feast?.type;
      return <KindBadge kind={feastType && FEAST_DATASET_KINDS.has(feastType) && isVisualKind(feastType) ? feastType : "dataset"} />;
    },
  },
  PRODUCER,
  UPDATED,
];

interface Props {
  kind: "job" | "dataset";
  route: Route;
  navigate: Navigate;
}

export function CatalogView({ kind, route, navigate }: Props) {
  const offset = pageOffset(route);
  useCanonicalUrl(route, navigate, { offset: offset ? String(offset) : null });
  const q = route.q ?? "";
  const [draft, setDraft] = useDraft(q, (v) => navigate({ q: v.trim() || null, offset: null }), 300);
  // Only an instant: a "seen during" window and "changes since" are the Lineage tab's, left
  // out of a link to this tab (so the list, the field and the details panel agree).
  const own = withoutLineageTimes(route);
  useCanonicalUrl(route, navigate, LINEAGE_ONLY_TIMES);
  const asOf = timeView(own).asOf;
  const timeNote = useTimeLink(own, navigate);

  const backToNow = () => {
    navigate({ as_of: null, offset: null }, { push: true });
    focusWhenShown('[data-testid="catalog-as-of-input"]'); // the button is gone with the banner
  };

  const query = {
    search: q.trim() || null,
    namespace: route.ns ?? null,
    limit: LIMIT,
    offset,
    sort: route.sort ?? null,
    ...(asOf ? { as_of: asOf } : {}),
  };
  const list = useCatalog(kind, query);
  const namespaces = useNamespaces();
  const selection = selectionOf(route, false, "node");
  const noun = kind === "job" ? "jobs" : "datasets";

  let body: React.ReactNode;
  if (list.error) body = <Failure error={list.error} what={noun} onRetry={list.refetch} />;
  else if (!list.data) body = <Loading what={noun} />;
  else if (list.data.total === 0) {
    body =
      q || route.ns ? (
        <Empty title={asOf ? `No ${noun} match as of ${formatInstant(asOf)}` : `No ${noun} match`}>
          <button type="button" className="link" onClick={() => navigate({ q: null, ns: null, offset: null })}>
            Clear the search
          </button>{" "}
          or try part of the name.
        </Empty>
      ) : asOf ? (
        <Empty title={`No ${noun} as of ${formatInstant(asOf)}`}>
          None had been named by an event by then.{" "}
          <button type="button" className="link" onClick={backToNow}>
            Back to now
          </button>
        </Empty>
      ) : (
        <Empty title={`No ${noun} yet`}>
          {noun[0].toUpperCase() + noun.slice(1)} appear when producers send OpenLineage events to{" "}
          <code>POST /api/v1/lineage</code>, or when you run <code>feast-lineage apply</code>.
        </Empty>
      );
  } else {
    const page = list.data;
    body = (
      <>
        <SortableTable
          rows={page.items}
          columns={kind === "job" ? JOB_COLUMNS : DATASET_COLUMNS}
          sort={route.sort ?? null}
          onSort={(sort) => navigate({ sort, offset: null }, { push: true })}
          rowId={(item) => item.id}
          rowProps={(item) => {
            const selected = selection?.namespace === item.namespace && selection?.name === item.name;
            return {
              className: `catalog-row ${selected ? "is-selected" : ""}`,
              ...openableRow(() => navigate(refPatch({ type: kind, namespace: item.namespace, name: item.name }), { push: true })),
              "aria-current": selected ? "true" : undefined,
              "data-node-id": item.id,
            };
          }}
          className="catalog-table"
          testid={`${kind}-table`}
          busy={list.isFetching}
        />
        <Pager offset={page.offset} limit={page.limit} total={page.total} noun={noun} onOffset={(next) => navigate({ offset: next || null }, { push: true })} />
      </>
    );
  }

  return (
    <div className="listview with-panel">
      <div className="listview-main">
        <div className="toolbar filters" role="search">
          <label className="field grow">
            <span>Search</span>
            <input
              type="search"
              value={draft}
              placeholder={`${kind} name contains…`}
              onChange={(e) => setDraft(e.target.value)}
              aria-label={`Search ${noun}`}
            />
          </label>
          <label className="field">
            <span>Namespace</span>
            <select
              value={route.ns ?? ""}
              onChange={(e) => navigate({ ns: e.target.value || null, offset: null }, { push: true })}
              aria-label="Namespace filter"
            >
              <option value="">All namespaces</option>
              {(namespaces.data?.counts ?? []).map((item) => (
                <option key={item.namespace} value={item.namespace}>
                  {item.namespace} ({kind === "job" ? item.jobs : item.datasets})
                </option>
              ))}
            </select>
          </label>
          <label className="field catalog-as-of">
            <span>As of</span>
            <InstantField
              label="As of (empty: now)"
              value={shownInstant(asOf)}
              onChange={(typed) => navigate({ as_of: typedInstant(typed), offset: null }, { push: true })}
              testId="catalog-as-of-input"
            />
          </label>
        </div>
        {timeNote && <TimeLinkNote note={timeNote} shows={asOf ? `the ${noun} as of ${formatInstant(asOf)}` : `the ${noun} now`} />}
        {asOf && (
          <div className="banner banner-history" role="status" data-testid="history-banner">
            <span>
              <strong>Historical view:</strong> the {noun} as they stood at <Instant iso={asOf} />
              {kind === "job" ? ", each with its latest run then" : ""}.
            </span>
            <button type="button" className="btn" onClick={backToNow} data-testid="back-to-now">
              Back to now
            </button>
          </div>
        )}
        <div className="listview-body">{body}</div>
      </div>
      {selection && (selection.type === "job" || selection.type === "dataset") && (
        <DetailsPanel
          selection={selection}
          drawn={null}
          route={own}
          navigate={navigate}
          onClose={() => navigate(refPatch(null))}
          consumerEnabled
        />
      )}
    </div>
  );
}
