// A job's versions (issue 40): when each began, its runs, and what it changed
// from the one before: inputs and outputs added or removed, source facets.
// Newest first, a page at a time ("Show older"); a click on a version's time
// opens it (the URL's jobver): its source facets, inputs and outputs. As of
// an instant: the versions first run by then, the one current then marked
// so, each with its runs started by then and its latest run in its state
// then (the API's `until` bounds the runs counted, not only the versions); a
// run under way then counts under the version of its events until then. The
// open version is read as of that instant too, or as of the URL's jobver_at
// (a diff's earlier side, or the instant it was opened at when the time
// control's changed since: history/jobVersionAt.ts), which its header names.

import { useJobVersion, useJobVersions } from "../../api/queries";
import { StateBadge } from "../../components/Badges";
import { JsonView } from "../../components/JsonView";
import { Failure, Loading } from "../../components/Status";
import { Instant, Time, ZonedHeader } from "../../components/Time";
import { formatInstant, shortId, timeDigits } from "../../format";
import { jobVersionAt, type JobVersionAt } from "../../history/jobVersionAt";
import { untilOf } from "../../history/time";
import { jobChange, type JobChange } from "../../history/versions";
import type { Navigate, Route } from "../../route";
import type { DatasetRef } from "../../types";
import { ShowOlder } from "./ShowOlder";

interface Props {
  namespace: string;
  name: string;
  /** The time control's instant: the versions first run by then; null: all of them. */
  asOf?: string | null;
  /** As of an instant: the version current then (the as-of node's `version`). */
  currentThen?: string | null;
  route: Route;
  navigate: Navigate;
}

export function JobVersions({ namespace, name, asOf = null, currentThen = null, route, navigate }: Props) {
  const versions = useJobVersions(namespace, name, untilOf(asOf));
  if (versions.error) return <Failure error={versions.error} what="the versions" onRetry={versions.refetch} />;
  if (!versions.data) return <Loading what="versions" />;
  const items = versions.data.pages.flatMap((page) => page.versions);
  const total = versions.data.pages[versions.data.pages.length - 1]?.total ?? items.length;
  const open = route.jobver ?? null;
  if (items.length === 0) {
    return <p className="muted small">{asOf ? `No versions run by ${formatInstant(asOf)}.` : "No versions recorded."}</p>;
  }
  const digits = timeDigits(items.map((item) => item.created_at_iso));
  return (
    <>
      {asOf && (
        <p className="muted small" data-testid="versions-as-of">
          As of <Instant iso={asOf} />: the versions first run by then.
        </p>
      )}
      <div className="list-head" data-testid="job-versions-head">
        <ZonedHeader label="First run" />
      </div>
      <ol className="plain job-versions" data-testid="job-versions">
        {items.map((item, i) => {
          const previous = items[i + 1] ?? null;
          const isOpen = open === item.id;
          // As of an instant, "current" is today's: the one current then is marked instead.
          const current = asOf ? item.id === currentThen : item.current;
          return (
            <li
              key={item.id}
              className={isOpen ? "job-version is-open" : "job-version"}
              data-version-id={item.id}
              data-current={current || undefined}
            >
              <div>
                <button
                  type="button"
                  className="link strong"
                  aria-expanded={isOpen}
                  title="Its source facets, inputs and outputs"
                  onClick={() => navigate({ jobver: isOpen ? null : item.id, jobver_at: null })}
                >
                  <Time iso={item.created_at_iso} digits={digits} />
                </button>
                {current &&
                  (asOf ? (
                    <span className="tag" title={`The version its latest run by ${formatInstant(asOf)} ran`}>
                      current then
                    </span>
                  ) : (
                    <span className="tag">current</span>
                  ))}{" "}
                <span
                  className="muted small"
                  data-testid="version-runs"
                  title={asOf ? `Its runs started by ${formatInstant(asOf)}` : undefined}
                >
                  {item.run_count} run{item.run_count === 1 ? "" : "s"}
                  {asOf ? " by then" : ""}
                </span>{" "}
                {item.latest_run && <StateBadge state={item.latest_run.state} />}
              </div>
              {previous ? (
                <ChangeList change={jobChange(previous, item)} />
              ) : i === items.length - 1 && items.length < total ? (
                <p className="muted small">Older versions not shown.</p>
              ) : (
                <p className="muted small">The first version.</p>
              )}
            </li>
          );
        })}
      </ol>
      <ShowOlder
        shown={items.length}
        total={total}
        loading={versions.isFetchingNextPage}
        onMore={versions.hasNextPage ? () => void versions.fetchNextPage() : null}
        testid="job-versions-more"
      />
      {open && (
        <JobVersionDetail namespace={namespace} name={name} id={open} readAt={jobVersionAt(route)} />
      )}
    </>
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

/**
 * One job version: when, its inputs and outputs, its source facets. As of an
 * instant (`readAt`), as it stood then: a version only a run under way then ran
 * (its START's inputs, say, before its COMPLETE added the outputs) opens too.
 * An instant not the time control's is named in its header.
 */
function JobVersionDetail({ namespace, name, id, readAt }: { namespace: string; name: string; id: string; readAt: JobVersionAt }) {
  const version = useJobVersion(namespace, name, id, untilOf(readAt.at));
  if (version.error) return <Failure error={version.error} what="the version" onRetry={version.refetch} />;
  if (!version.data) return <Loading what="the version" />;
  const v = version.data;
  const facets = Object.keys(v.source_facets).length > 0;
  return (
    <div className="version-detail" data-testid="job-version-detail" data-version-id={v.id}>
      <h4>
        Version of <Time iso={v.created_at_iso} digits={3} zoned /> <span className="mono small muted">{shortId(v.id)}</span>
        {readAt.own && (
          <>
            {" "}
            <span className="small muted" data-testid="version-read-at" title="Read as of this instant, not the time control's">
              as of {readAt.at ? <Instant iso={readAt.at} /> : "now"}
            </span>
          </>
        )}
      </h4>
      <p className="small">
        <strong>Inputs:</strong> {v.inputs.length ? refs(v.inputs) : "none"}
        <br />
        <strong>Outputs:</strong> {v.outputs.length ? refs(v.outputs) : "none"}
      </p>
      {facets ? <JsonView value={v.source_facets} /> : <p className="muted small">No source facets.</p>}
    </div>
  );
}
