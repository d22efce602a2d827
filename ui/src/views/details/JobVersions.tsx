// A job's versions (issue 40): when each began, its runs, and what it changed
// from the one before: inputs and outputs added or removed, source facets.

import { useJobVersions } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { Failure, Loading } from "../../components/Status";
import { formatTime } from "../../format";
import { jobChange, type JobChange } from "../../history/versions";
import type { DatasetRef } from "../../types";

export function JobVersions({ namespace, name }: { namespace: string; name: string }) {
  const versions = useJobVersions(namespace, name);
  if (versions.error) return <Failure error={versions.error} what="the versions" onRetry={versions.refetch} />;
  if (!versions.data) return <Loading what="versions" />;
  const items = versions.data.versions;
  if (items.length === 0) return <p className="muted small">No versions recorded.</p>;
  return (
    <ol className="plain job-versions" data-testid="job-versions">
      {items.map((item, i) => {
        const previous = items[i + 1] ?? null;
        return (
          <li key={item.id} className="job-version" data-version-id={item.id}>
            <div>
              <strong>{formatTime(item.created_at_iso)}</strong>
              {item.current && <span className="tag">current</span>}{" "}
              <span className="muted small">
                {item.run_count} run{item.run_count === 1 ? "" : "s"}
              </span>{" "}
              {item.latest_run && <StateBadge state={item.latest_run.state} />}
            </div>
            {previous ? <ChangeList change={jobChange(previous, item)} /> : <p className="muted small">The first version.</p>}
          </li>
        );
      })}
    </ol>
  );
}

function refs(items: DatasetRef[]): string {
  return items.map((ref) => ref.name).join(", ");
}

function ChangeList({ change }: { change: JobChange }) {
  const lines: [string, string, string][] = [];
  if (change.inputsAdded.length) lines.push(["change-green", "+", `inputs added: ${refs(change.inputsAdded)}`]);
  if (change.inputsRemoved.length) lines.push(["change-red", "−", `inputs removed: ${refs(change.inputsRemoved)}`]);
  if (change.outputsAdded.length) lines.push(["change-green", "+", `outputs added: ${refs(change.outputsAdded)}`]);
  if (change.outputsRemoved.length) lines.push(["change-red", "−", `outputs removed: ${refs(change.outputsRemoved)}`]);
  if (change.facetsChanged.length) lines.push(["change-amber", "△", `changed: ${change.facetsChanged.join(", ")}`]);
  if (lines.length === 0) return <p className="muted small">No change to inputs, outputs or source.</p>;
  return (
    <ul className="plain small">
      {lines.map(([cls, icon, text]) => (
        <li key={text} className={cls}>
          <span aria-hidden>{icon}</span> {text}
        </li>
      ))}
    </ul>
  );
}
