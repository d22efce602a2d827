// The Events tab: every stored event, newest first, paged through the whole
// store, filtered by namespace, job, event type, run and time range.

import { asEventType } from "../../api/endpoints";
import { useEvents } from "../../api/queries";
import { Pager } from "../../components/Pager";
import { Empty, Failure, Loading } from "../../components/Status";
import { timeDigits } from "../../format";
import { ZonedHeader } from "../../components/Time";
import { useCanonicalUrl } from "../../hooks/useCanonicalUrl";
import { useFilterTimes } from "../../hooks/useFilterTimes";
import { pageOffset, type Navigate, type Patch, type Route } from "../../route";
import { EventFilters, NO_FILTERS, SIZES } from "./EventFilters";
import { EventRow } from "./EventRow";
import { describeRange, TimeLinkNote } from "../lineage/TimeLinkNote";

interface Props {
  route: Route;
  navigate: Navigate;
}

const EVENT_RANGE = { from: "from", until: "until", any: "of any time" };

export function EventsView({ route, navigate }: Props) {
  const limit = SIZES.includes(Number(route.limit)) ? Number(route.limit) : 50;
  const offset = pageOffset(route);
  useCanonicalUrl(route, navigate, { offset: offset ? String(offset) : null });
  const times = useFilterTimes(route, navigate);
  const type = asEventType(route.type);
  const events = useEvents({
    namespace: route.ns,
    job_search: route.job,
    event_type: type,
    run_id: route.run_id,
    since: times.since,
    until: times.until,
    limit,
    offset,
  });
  // A type that is no event type is ignored (every type listed): no filter.
  const others = Boolean(route.ns || route.job || type || route.run_id);
  const filtered = others || Boolean(route.since || route.until);
  const open = route.ev ? Number(route.ev) : null;
  const setFilter = (patch: Patch) => navigate({ ...patch, offset: null, ev: null }, { push: true });

  let body: React.ReactNode;
  if (events.error) body = <Failure error={events.error} what="events" onRetry={events.refetch} />;
  else if (!events.data) body = <Loading what="events" />;
  else if (events.data.total === 0) {
    body = filtered ? (
      <Empty title="No event matches these filters">
        <button type="button" className="link" onClick={() => setFilter(NO_FILTERS)}>
          Clear all filters
        </button>{" "}
        or widen the time range.
      </Empty>
    ) : (
      <Empty title="No events stored yet">
        Send OpenLineage events to <code>POST /api/v1/lineage</code> on this server (Airflow, dbt, Spark or{" "}
        <code>feast-lineage apply</code> with <code>openlineage.enabled: true</code>); they appear here, newest first.
      </Empty>
    );
  } else {
    const page = events.data;
    // Rows of one second read apart: milliseconds (or microseconds) where two share one.
    const digits = timeDigits(page.events.map((item) => item.event_time_iso));
    body = (
      <>
        <table className="table events-table" data-testid="events-table" aria-busy={events.isFetching}>
          <thead>
            <tr>
              <th>
                <ZonedHeader label="Event time" />
              </th>
              <th>Type</th>
              <th>Job</th>
              <th>Run</th>
              <th>Inputs → outputs</th>
              <th>Producer</th>
            </tr>
          </thead>
          <tbody>
            {page.events.map((item) => (
              <EventRow
                key={item.id}
                item={item}
                open={open === item.id}
                navigate={navigate}
                setFilter={setFilter}
                digits={digits}
              />
            ))}
          </tbody>
        </table>
        <Pager
          offset={page.offset}
          limit={page.limit}
          total={page.total}
          noun="events"
          onOffset={(next) => navigate({ offset: next || null, ev: null }, { push: true })}
        />
      </>
    );
  }

  return (
    <div className="listview">
      <EventFilters route={route} type={type} limit={limit} filtered={filtered} invalid={times.invalid} navigate={navigate} setFilter={setFilter} />
      {times.note && (
        <TimeLinkNote
          note={times.note}
          shows={describeRange(others ? "the events the other filters match" : "every event", times.since, times.until, EVENT_RANGE)}
          kept
        />
      )}
      <div className="listview-body">{body}</div>
    </div>
  );
}
