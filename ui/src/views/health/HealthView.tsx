// The Health tab (issue 41): the open problems, failed jobs and stale
// datasets, newest first, each with the Feast objects and end nodes it
// reaches; filters by kind and namespace; a click shows a problem on the graph.

import { useNamespaces } from "../../api/queries";
import { asProblemKind, useHealth } from "../../api/health";
import { Pager } from "../../components/Pager";
import { Empty, Failure, Loading } from "../../components/Status";
import { useCanonicalUrl } from "../../hooks/useCanonicalUrl";
import { focusWhenShown } from "../../focus";
import { pageOffset, type Navigate, type Patch, type Route } from "../../route";
import { ProblemCard } from "./ProblemCard";
import "./health.css";

const LIMIT = 20;

/**
 * The graph a problem's link names, the focus on the node it selects once drawn (the link
 * itself is gone): the selected one, which may be drawn for its alias group.
 */
function showNode(navigate: Navigate, patch: Patch): void {
  navigate(patch, { push: true });
  focusWhenShown(".react-flow__node:has(.lnode.is-selected)");
}

export function HealthView({ route, navigate }: { route: Route; navigate: Navigate }) {
  const offset = pageOffset(route);
  const kind = asProblemKind(route.kind);
  useCanonicalUrl(route, navigate, { offset: offset ? String(offset) : null, kind: kind ?? null });
  const namespace = route.ns ?? null;
  const health = useHealth({ namespace, kind, limit: LIMIT, offset });
  const namespaces = useNamespaces();
  const now = Date.now();

  let body: React.ReactNode;
  if (health.error) body = <Failure error={health.error} what="the open problems" onRetry={health.refetch} />;
  else if (!health.data) body = <Loading what="the open problems" />;
  else if (health.data.total === 0) {
    body = (
      <Empty title={kind || namespace ? "No open problems match" : "No open problems"}>
        Every job's latest run succeeded, and every dataset was written within its expected interval.
      </Empty>
    );
  } else {
    const page = health.data;
    body = (
      <>
        <div className="problems" aria-busy={health.isFetching} data-testid="problems">
          {page.problems.map((problem) => (
            <ProblemCard key={problem.id} problem={problem} now={now} onShow={(patch) => showNode(navigate, patch)} />
          ))}
        </div>
        <Pager offset={page.offset} limit={page.limit} total={page.total} noun="problems" onOffset={(next) => navigate({ offset: next || null }, { push: true })} />
      </>
    );
  }

  return (
    <div className="listview">
      <div className="listview-main">
        <div className="toolbar filters" role="search" aria-label="Problem filters">
          <label className="field">
            <span>Problem</span>
            <select value={kind ?? ""} onChange={(e) => navigate({ kind: e.target.value || null, offset: null }, { push: true })} aria-label="Problem kind filter">
              <option value="">Failed and stale</option>
              <option value="failed">Failed jobs</option>
              <option value="stale">Stale datasets</option>
            </select>
          </label>
          <label className="field">
            <span>Namespace</span>
            <select value={namespace ?? ""} onChange={(e) => navigate({ ns: e.target.value || null, offset: null }, { push: true })} aria-label="Namespace filter">
              <option value="">All namespaces</option>
              {(namespaces.data?.counts ?? []).map((item) => (
                <option key={item.namespace} value={item.namespace}>
                  {item.namespace}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="listview-body">{body}</div>
      </div>
    </div>
  );
}
