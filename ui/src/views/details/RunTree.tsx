// A run's tree (issue 40): its root, parents and children, indented, with
// each run's job, state and duration; the run open is highlighted, and a
// click on another opens it (its job's panel, that run expanded).

import { useRunTree } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { Failure, Loading } from "../../components/Status";
import { formatDuration, shortId } from "../../format";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import type { RunTreeNode } from "../../types";

export function RunTree({ runId, navigate }: { runId: string; navigate: Navigate }) {
  const tree = useRunTree(runId);
  if (tree.error) return <Failure error={tree.error} what="the run's tree" onRetry={tree.refetch} />;
  if (!tree.data) return <Loading what="the run's tree" />;
  const open = (node: RunTreeNode) =>
    node.job_name &&
    navigate(
      { ...refPatch({ type: "job", namespace: node.job_namespace ?? "", name: node.job_name }), run: node.run_id },
      { push: true },
    );
  return (
    <>
      <ul className="plain run-tree" data-testid="run-tree" role="tree" aria-label="Run tree">
        {tree.data.runs.map((entry, i) => {
          if (!("run_id" in entry)) {
            // A run in a namespace this key may not see: its place only.
            return (
              <li key={`hidden-${i}`} role="treeitem" aria-level={entry.depth + 1} className="run-tree-node muted small"
                style={{ paddingLeft: `${entry.depth * 16}px` }}>
                a run you cannot see
              </li>
            );
          }
          const node = entry;
          const current = node.run_id === runId;
          return (
            <li
              key={node.run_id}
              role="treeitem"
              aria-selected={current}
              aria-level={node.depth + 1}
              className={current ? "run-tree-node is-current" : "run-tree-node"}
              style={{ paddingLeft: `${node.depth * 16}px` }}
              data-run-id={node.run_id}
            >
              <StateBadge state={node.missing ? "MISSING" : node.state} />{" "}
              {node.job_name && !current ? (
                <button type="button" className="link" onClick={() => open(node)} title={node.run_id}>
                  {node.job_name}
                </button>
              ) : (
                <span title={node.run_id}>{node.job_name ?? shortId(node.run_id)}</span>
              )}{" "}
              <span className="muted small">{formatDuration(node.duration_ms)}</span>
              {node.pruned && <span className="muted small"> · {node.child_count} more below</span>}
            </li>
          );
        })}
      </ul>
      {tree.data.truncated && <p className="muted small">Only part of the tree is shown.</p>}
    </>
  );
}
