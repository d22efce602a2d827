// One open problem of the Health tab: the failed job or stale dataset, since
// when and why, and what it reaches, grouped. A click on the problem (or on
// one node it reaches) shows it on the graph with the affected path lit.

import { exactTime, formatInstant } from "../../format";
import { HealthMark } from "../../graph/HealthMark";
import type { HealthProblem, Reached } from "../../types";
import { graphPatch, REACH_GROUPS, reachedLabel, type ReachGroup } from "./reach";
import type { Patch } from "../../route";
import { agoFrom, span } from "./words";

interface Props {
  problem: HealthProblem;
  now: number;
  onShow: (patch: Patch) => void;
}

/** "3 steps", and the path's free hops across symlinks (two names of one dataset) when it has any. */
function stepsText({ distance, symlink_hops }: Reached): string {
  const steps = `${distance} step${distance === 1 ? "" : "s"}`;
  return symlink_hops ? `${steps} + ${symlink_hops} symlink hop${symlink_hops === 1 ? "" : "s"}` : steps;
}

function ReachedItem({ reached, group, onShow }: { reached: Reached; group: ReachGroup; onShow: () => void }) {
  const label = reachedLabel(reached.name, group);
  return (
    <li data-node-id={reached.node}>
      <button type="button" className="link" onClick={onShow} title={`Show the path to ${reached.name} on the graph`}>
        {label.kind && <span className="reach-kind">{label.kind}</span>}
        {label.kind && " "}
        {label.name}
      </button>{" "}
      <span className="muted small">
        {reached.namespace} · {stepsText(reached)}
      </span>
    </li>
  );
}

export function ProblemCard({ problem, now, onShow }: Props) {
  const node = problem.node;
  const what = problem.kind === "failed" ? "failed" : "stale";
  const reachedAny = REACH_GROUPS.some(({ key }) => problem.reach_totals[key] > 0);
  return (
    <article className={`problem problem-${problem.kind}`} data-testid="problem" data-problem={problem.id}>
      <header className="problem-head">
        <HealthMark state={problem.kind} />
        {/* The name is the button itself (no element inside it): what reads as the link is what takes the focus. */}
        <button type="button" className="problem-title problem-name link" onClick={() => onShow(graphPatch(problem, null))} title="Show it and everything downstream of it on the graph">
          {node.name}
        </button>
        <span className="muted small">{node.namespace}</span>
        <span className={`problem-kind problem-kind-${problem.kind}`}>
          {node.kind} {what}
        </span>
        <span className="small" title={exactTime(problem.since)}>
          since {agoFrom(problem.since, now) ?? formatInstant(problem.since)}
        </span>
      </header>
      {problem.error && <p className="problem-error mono small">{problem.error}</p>}
      {problem.kind === "stale" && (
        <p className="small">
          {problem.last_write ? `last written ${agoFrom(problem.last_write, now)}` : "never written"}
          {problem.expected_interval_seconds != null && `, expected every ${span(problem.expected_interval_seconds)}`}
        </p>
      )}
      {reachedAny ? (
        <div className="problem-reach">
          {REACH_GROUPS.filter(({ key }) => problem.reach_totals[key] > 0).map(({ key, label }) => (
            <section key={key} className="reach-group" data-group={key}>
              <h3>
                {label} <span className="muted">{problem.reach_totals[key]}</span>
              </h3>
              <ul>
                {problem.reaches[key].map((reached) => (
                  <ReachedItem key={reached.node} reached={reached} group={key} onShow={() => onShow(graphPatch(problem, reached))} />
                ))}
              </ul>
              {problem.reach_totals[key] > problem.reaches[key].length && (
                <p className="muted small">and {problem.reach_totals[key] - problem.reaches[key].length} more</p>
              )}
            </section>
          ))}
        </div>
      ) : (
        <p className="muted small">It reaches no Feast object, and nothing downstream.</p>
      )}
    </article>
  );
}
