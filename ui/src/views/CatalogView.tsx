// The Jobs and Datasets tabs: searchable, paged lists; a row opens the
// details panel.

import { useCatalog, useNamespaces } from "../api/queries";
import { KindBadge } from "../components/Badges";
import { Pager } from "../components/Pager";
import { Empty, Failure, Loading } from "../components/Status";
import { FEAST_DATASET_KINDS, isVisualKind } from "../graph/kinds";
import { formatTime, producerLabel } from "../format";
import { useDraft } from "../hooks/useDraft";
import type { Navigate, Route } from "../route";
import { refPatch, selectionOf } from "../selection";
import { DetailsPanel } from "./details/DetailsPanel";

const LIMIT = 50;

interface Props {
  kind: "job" | "dataset";
  route: Route;
  navigate: Navigate;
}

export function CatalogView({ kind, route, navigate }: Props) {
  const offset = Math.max(0, Number(route.offset ?? 0) || 0);
  const q = route.q ?? "";
  const [draft, setDraft] = useDraft(q, (v) => navigate({ q: v.trim() || null, offset: null }), 300);

  const query = { search: q.trim() || null, namespace: route.ns ?? null, limit: LIMIT, offset };
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
        <Empty title={`No ${noun} match`}>
          <button type="button" className="link" onClick={() => navigate({ q: null, ns: null, offset: null })}>
            Clear the search
          </button>{" "}
          or try part of the name.
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
        <table className="table catalog-table" data-testid={`${kind}-table`} aria-busy={list.isFetching}>
          <thead>
            <tr>
              <th>Name</th>
              <th>Namespace</th>
              {kind === "dataset" && <th>Kind</th>}
              <th>Producer</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => {
              const feastType = item.feast?.type;
              const isSelected = selection?.namespace === item.namespace && selection?.name === item.name;
              return (
                <tr
                  key={item.id}
                  className={`catalog-row ${isSelected ? "is-selected" : ""}`}
                  onClick={() => navigate(refPatch({ type: kind, namespace: item.namespace, name: item.name }), { push: true })}
                >
                  <td>
                    <div className="strong">{item.name}</div>
                    {item.datasource_uri && (
                      <div className="mono small muted break">{item.datasource_uri}</div>
                    )}
                  </td>
                  <td className="mono small">{item.namespace}</td>
                  {kind === "dataset" && (
                    <td>
                      <KindBadge
                        kind={feastType && FEAST_DATASET_KINDS.has(feastType) && isVisualKind(feastType) ? feastType : "dataset"}
                      />
                    </td>
                  )}
                  <td className="small">{producerLabel(item.producer)}</td>
                  <td className="small nowrap">{formatTime(item.updated_at_iso)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
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
        </div>
        <div className="listview-body">{body}</div>
      </div>
      {selection && (selection.type === "job" || selection.type === "dataset") && (
        <DetailsPanel
          selection={selection}
          drawn={null}
          route={route}
          navigate={navigate}
          onClose={() => navigate(refPatch(null))}
          consumerEnabled
        />
      )}
    </div>
  );
}
