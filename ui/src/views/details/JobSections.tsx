// What a job's panel adds: its type and source code, its SQL, its runs and
// versions (as of the time control's instant, when one is set).

import type { Navigate, Route } from "../../route";
import type { GraphNode } from "../../types";
import { facetString } from "./facets";
import { JobVersions } from "./JobVersions";
import { RunHistory } from "./RunHistory";
import { RunTree } from "./RunTree";
import { Rows, Section } from "./Section";
import { text } from "./values";

interface Props {
  node: GraphNode;
  /** The time control's instant: runs and versions as of then; null: now. */
  asOf: string | null;
  route: Route;
  navigate: Navigate;
}

export function JobSections({ node, asOf, route, navigate }: Props) {
  const jobType = node.facets.jobType;
  const sourceCode = node.facets.sourceCodeLocation;
  const sql = facetString(node.facets, "sql", "query");
  return (
    <>
      {(jobType || sourceCode) && (
        <Section title="Job">
          <Rows
            rows={[
              ["Type", text(jobType?.jobType)],
              ["Integration", text(jobType?.integration)],
              ["Processing", text(jobType?.processingType)],
              ["Source code", text(sourceCode?.url ?? sourceCode?.repoUrl)],
              ["Path", text(sourceCode?.path)],
            ]}
          />
        </Section>
      )}
      {sql && (
        <Section title="SQL">
          <pre className="code">{sql}</pre>
        </Section>
      )}
      <Section title="Run history" testid="run-history">
        <RunHistory
          key={node.id}
          namespace={node.namespace}
          name={node.name}
          asOf={asOf}
          route={route}
          navigate={navigate}
        />
      </Section>
      {route.run && (
        <Section title="Run tree" testid="run-tree-section">
          <RunTree key={route.run} runId={route.run} navigate={navigate} />
        </Section>
      )}
      <Section title="Versions" testid="job-versions-section">
        <JobVersions
          key={node.id}
          namespace={node.namespace}
          name={node.name}
          asOf={asOf}
          currentThen={asOf ? (node.version ?? null) : null}
          route={route}
          navigate={navigate}
        />
      </Section>
    </>
  );
}
