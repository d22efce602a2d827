// The page: a header with the tabs, and the tab the URL names.

import { useSettings } from "./api/queries";
import { KeyControl } from "./components/KeyForm";
import { Failure, Loading } from "./components/Status";
import { keepJobVersionAt } from "./history/jobVersionAt";
import { useEscapeCloses } from "./hooks/useEscapeCloses";
import { isUnknownPath, useRoute, type Patch } from "./route";
import { CatalogView } from "./views/CatalogView";
import { EventsView } from "./views/events/EventsView";
import { HealthView } from "./views/health/HealthView";
import { LineageView } from "./views/lineage/LineageView";
import { NotFound } from "./views/NotFound";
import { RunsView } from "./views/runs/RunsView";

const TABS = [
  { id: "lineage", label: "Lineage", consumer: false },
  { id: "events", label: "Events", consumer: true },
  { id: "runs", label: "Runs", consumer: true },
  { id: "jobs", label: "Jobs", consumer: true },
  { id: "datasets", label: "Datasets", consumer: true },
  { id: "health", label: "Health", consumer: true },
] as const;

function ConsumerOff({ tab }: { tab: string }) {
  return (
    <div className="status status-empty" data-testid="consumer-off">
      <div className="status-title">The {tab} tab needs the OpenLineage consumer, which is off</div>
      <div className="status-body">
        Add this to <code>feature_store.yaml</code> and restart <code>feast-lineage ui</code>:
        <pre className="code">{`openlineage:
  enabled: true
  consumer:
    enabled: true
    # with a SQL registry (registry_type: sql), or a database of its own:
    # connection_string: sqlite:///data/lineage.db`}</pre>
        The Lineage tab shows the Feast registry's lineage meanwhile.
      </div>
    </div>
  );
}

export function App() {
  // A job version open stays read as of its instant when the time control's changes.
  const [route, navigate] = useRoute(keepJobVersionAt);
  const settings = useSettings();
  const unknownPath = isUnknownPath();
  const tab = TABS.some((t) => t.id === route.tab) ? (route.tab as string) : "lineage";
  // (On the not-found page, no tab is the page's.)
  const shown = unknownPath ? null : tab;
  const go = (patch: Patch, options?: { push?: boolean }) => navigate(patch, options);
  useEscapeCloses(route, navigate);

  let body: React.ReactNode;
  if (unknownPath) body = <NotFound onHome={() => navigate({}, { push: true, replace: true })} />;
  else if (settings.error) body = <Failure error={settings.error} what="the server settings" onRetry={settings.refetch} />;
  else if (!settings.data) body = <Loading what="feast-lineage" />;
  else {
    const s = settings.data;
    const needsConsumer = TABS.find((t) => t.id === tab)?.consumer ?? false;
    if (needsConsumer && !s.consumer_enabled) body = <ConsumerOff tab={tab} />;
    else if (tab === "events") body = <EventsView route={route} navigate={go} />;
    else if (tab === "health") body = <HealthView route={route} navigate={go} />;
    else if (tab === "runs") body = <RunsView route={route} navigate={go} />;
    else if (tab === "jobs") body = <CatalogView key="jobs" kind="job" route={route} navigate={go} />;
    else if (tab === "datasets") body = <CatalogView key="datasets" kind="dataset" route={route} navigate={go} />;
    else body = <LineageView settings={s} route={route} navigate={go} />;
  }

  return (
    <div className="app">
      <header className="topbar">
        <div className="brand">
          <span className="brand-mark">◆</span> Feast lineage
        </div>
        <nav className="tabs" role="tablist">
          {TABS.map((t) => (
            <button
              key={t.id}
              type="button"
              role="tab"
              aria-selected={shown === t.id}
              className={shown === t.id ? "tab is-active" : "tab"}
              onClick={() => navigate({ tab: t.id === "lineage" ? null : t.id }, { push: true, replace: true })}
            >
              {t.label}
            </button>
          ))}
        </nav>
        <div className="topbar-right">
          {settings.data?.project && <span className="muted">project {settings.data.project}</span>}
          {settings.data && !settings.data.consumer_enabled && <span className="pill-off">consumer off</span>}
          <KeyControl offered={settings.data !== undefined && settings.data.read_key !== "none"} />
          <a href="docs" target="_blank" rel="noreferrer">
            API
          </a>
          {settings.data && <span className="muted small">v{settings.data.version}</span>}
        </div>
      </header>
      <main className="content">{body}</main>
    </div>
  );
}
