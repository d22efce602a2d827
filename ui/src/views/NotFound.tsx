// The page at a path the UI does not have (a mistyped or stale link): the
// server answers 404 with the UI, which says so and links to its pages.

import { appPath } from "../route";

export function NotFound({ onHome }: { onHome: () => void }) {
  const path = window.location.pathname;
  return (
    <div className="status status-empty not-found" data-testid="not-found">
      <h1 className="status-title">No page at {path}</h1>
      <div className="status-body">
        <p>
          This server's lineage UI lives at <code>{appPath()}</code>; everything it shows (the tab, the node, the filters) is in
          the query string after it. The API is under <code>{appPath()}api/v1/</code>, documented at{" "}
          <a href={`${appPath()}docs`}>{appPath()}docs</a>.
        </p>
        <p>
          <a
            href={appPath()}
            onClick={(e) => {
              e.preventDefault();
              onHome();
            }}
          >
            Open the lineage graph
          </a>
        </p>
      </div>
    </div>
  );
}
