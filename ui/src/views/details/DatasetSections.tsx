// What a dataset's panel adds: the jobs that write it and read it, and its
// latest write (the run, when, rows and bytes from outputStatistics).

import { useDatasetUse, type NodeRef } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { Failure, Loading } from "../../components/Status";
import { Time } from "../../components/Time";
import { formatBytes, formatCount, shortId } from "../../format";
import { nodeId } from "../../nodeId";
import type { Navigate } from "../../route";
import { refPatch } from "../../selection";
import { Rows, Section } from "./Section";

interface Props {
  namespace: string;
  name: string;
  /** The time control's instant: the jobs and latest write as of then; null: now. */
  asOf?: string | null;
  navigate: Navigate;
}

export function DatasetSections({ namespace, name, asOf = null, navigate }: Props) {
  const use = useDatasetUse(namespace, name, asOf);
  if (use.error) return <Failure error={use.error} what="the dataset's jobs" onRetry={use.refetch} />;
  if (!use.data) return <Loading what="the dataset's jobs" />;
  const { writers, readers, latestWrite } = use.data;
  const open = (job: NodeRef) => navigate(refPatch(job), { push: true });
  return (
    <>
      <Section title="Latest write" testid="latest-write">
        {latestWrite ? (
          <Rows
            rows={[
              [
                "Run",
                <span key="run">
                  <StateBadge state={latestWrite.run.state} />{" "}
                  <span className="mono small" title={latestWrite.run.run_id}>
                    {shortId(latestWrite.run.run_id)}
                  </span>{" "}
                  by {latestWrite.run.job_name}
                </span>,
              ],
              ["Time", <Time key="time" iso={latestWrite.run.ended_at_iso ?? latestWrite.run.started_at_iso} zoned />],
              ["Rows", latestWrite.rows === null ? null : formatCount(latestWrite.rows)],
              ["Bytes", latestWrite.bytes === null ? null : formatBytes(latestWrite.bytes)],
            ]}
          />
        ) : (
          <p className="muted small">No run of its writers wrote it lately.</p>
        )}
      </Section>
      <Section title={`Written by (${writers.length})`} testid="dataset-writers">
        <JobList jobs={writers} open={open} empty="No job writes it (it is only read, or declared)." />
      </Section>
      <Section title={`Read by (${readers.length})`} testid="dataset-readers">
        <JobList jobs={readers} open={open} empty="No job reads it." />
      </Section>
    </>
  );
}

function JobList({ jobs, open, empty }: { jobs: NodeRef[]; open: (job: NodeRef) => void; empty: string }) {
  if (jobs.length === 0) return <p className="muted small">{empty}</p>;
  return (
    <ul className="plain">
      {jobs.map((job) => (
        <li key={nodeId("job", job.namespace, job.name)}>
          <button type="button" className="link" onClick={() => open(job)}>
            {job.name}
          </button>{" "}
          <span className="mono small muted">{job.namespace}</span>
        </li>
      ))}
    </ul>
  );
}
