// One event of the Events tab: time, type, job, run, inputs and outputs,
// producer; open, its JSON and links to its run's events and its job.

import { Fragment } from "react";
import { StateBadge } from "../../components/Badges";
import { JsonView } from "../../components/JsonView";
import { openableRow } from "../../components/openableRow";
import { Time } from "../../components/Time";
import { producerLabel, shortId } from "../../format";
import type { Navigate, Patch } from "../../route";
import { refPatch } from "../../selection";
import type { EventItem, StoredEvent } from "../../types";

function datasetNames(event: StoredEvent, key: "inputs" | "outputs"): string[] {
  return (event[key] ?? []).map((d) => d.name);
}

interface Props {
  item: EventItem;
  open: boolean;
  navigate: Navigate;
  setFilter: (patch: Patch) => void;
  /** The digits the page's event times need to read apart (format.timeDigits). */
  digits?: 0 | 3 | 6;
}

export function EventRow({ item, open, navigate, setFilter, digits = 0 }: Props) {
  const job = item.event.job?.name ? item.event.job : null;
  const inputs = datasetNames(item.event, "inputs");
  const outputs = datasetNames(item.event, "outputs");
  return (
    <Fragment>
      <tr
        className={`event-row ${open ? "is-open" : ""}`}
        data-event-id={item.id}
        {...openableRow(() => navigate({ ev: open ? null : item.id }))}
      >
        <td className="nowrap">
          <Time iso={item.event_time_iso} digits={digits} />
        </td>
        <td>
          {item.event_type ? <StateBadge state={item.event_type} /> : <span className="muted">{item.kind} event</span>}
        </td>
        <td>
          {job ? (
            <>
              <div className="strong">{job.name}</div>
              <div className="mono small muted">{job.namespace}</div>
            </>
          ) : (
            <span className="muted">—</span>
          )}
        </td>
        <td className="mono small" title={item.run_id ?? ""}>
          {shortId(item.run_id)}
        </td>
        <td className="small">
          <span title={inputs.join("\n")}>{inputs.length} in</span> →{" "}
          <span title={outputs.join("\n")}>{outputs.length} out</span>
        </td>
        <td className="small">{producerLabel(item.event.producer)}</td>
      </tr>
      {open && (
        <tr className="event-json">
          <td colSpan={6} onClick={(e) => e.stopPropagation()}>
            <div className="event-json-head">
              Received <Time iso={item.created_at_iso} zoned />
              {item.run_id && (
                <button type="button" className="link" onClick={() => setFilter({ run_id: item.run_id })}>
                  Only this run's events
                </button>
              )}
              {job && (
                <button
                  type="button"
                  className="link"
                  onClick={() =>
                    navigate(
                      { tab: "lineage", view: null, ...refPatch({ type: "job", namespace: job.namespace, name: job.name }), ev: null },
                      { push: true },
                    )
                  }
                >
                  Open the job
                </button>
              )}
            </div>
            <JsonView value={item.event} openDepth={6} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}
