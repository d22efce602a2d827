// A dataset's versions (issue 40): time, run, job, rows, bytes and the schema
// change in one line; a click opens the version's full schema and its diff to
// the one before. Newest first, a page at a time ("Show older"). As of an
// instant: the versions made by then, the one current then marked so.

import { useDatasetVersion, useDatasetVersions } from "../../api/queries";
import { Failure, Loading } from "../../components/Status";
import { Instant, Time, ZonedHeader } from "../../components/Time";
import { formatBytes, formatCount, formatInstant, shortId, timeDigits } from "../../format";
import { compareInstants } from "../../history/instant";
import { untilOf } from "../../history/time";
import { fieldDiff, schemaChangeLine } from "../../history/versions";
import type { Navigate, Route } from "../../route";
import type { DatasetVersionItem, SchemaDiff } from "../../types";
import { ShowOlder } from "./ShowOlder";

interface Props {
  namespace: string;
  name: string;
  /** The time control's instant: the versions made by then; null: all of them. */
  asOf?: string | null;
  /** As of an instant: the version current then (the as-of node's `version`). */
  currentThen?: string | null;
  route: Route;
  navigate: Navigate;
}

export function DatasetVersions({ namespace, name, asOf = null, currentThen = null, route, navigate }: Props) {
  const versions = useDatasetVersions(namespace, name, untilOf(asOf));
  if (versions.error) return <Failure error={versions.error} what="the versions" onRetry={versions.refetch} />;
  if (!versions.data) return <Loading what="versions" />;
  const items = versions.data.pages.flatMap((page) => page.versions);
  const total = versions.data.pages[versions.data.pages.length - 1]?.total ?? items.length;
  if (items.length === 0) {
    return <p className="muted small">{asOf ? `No versions made by ${formatInstant(asOf)}.` : "No versions recorded."}</p>;
  }
  const open = route.dsver ?? null;
  const digits = timeDigits(items.map((item) => item.created_at_iso));
  return (
    <>
      {asOf && (
        <p className="muted small" data-testid="versions-as-of">
          As of <Instant iso={asOf} />: the versions made by then.
        </p>
      )}
      <table className="table versions-table" data-testid="dataset-versions">
        <thead>
          <tr>
            <th>
              <ZonedHeader label="Time" />
            </th>
            <th>Run</th>
            <th className="num">Rows</th>
            <th className="num">Bytes</th>
            <th>Schema</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item, i) => (
            <VersionRow
              key={item.id}
              item={item}
              previous={items[i + 1] ?? null}
              older={i === items.length - 1 && items.length < total}
              digits={digits}
              currentThen={asOf !== null && item.id === currentThen}
              open={open === item.id}
              onOpen={() => navigate({ dsver: open === item.id ? null : item.id })}
            />
          ))}
        </tbody>
      </table>
      <ShowOlder
        shown={items.length}
        total={total}
        loading={versions.isFetchingNextPage}
        onMore={versions.hasNextPage ? () => void versions.fetchNextPage() : null}
        testid="dataset-versions-more"
      />
      {open && <VersionDetail namespace={namespace} name={name} id={open} asOf={asOf} />}
    </>
  );
}

function VersionRow({
  item,
  previous,
  older,
  digits,
  currentThen,
  open,
  onOpen,
}: {
  item: DatasetVersionItem;
  previous: DatasetVersionItem | null;
  /** The version before it is not loaded yet ("Show older"). */
  older: boolean;
  /** The fraction of a second the list's times show (rows within one second read apart). */
  digits: 0 | 3 | 6;
  /** It is the version current at the time control's instant. */
  currentThen: boolean;
  open: boolean;
  onOpen: () => void;
}) {
  // The oldest version shown has no earlier one to compare with (unless the API named it).
  const line = previous ? schemaChangeLine(fieldDiff(previous.fields, item.fields)) : "";
  const stats = item.statistics;
  return (
    <tr
      className={open ? "version-row is-open" : "version-row"}
      data-version-id={item.id}
      data-current-then={currentThen || undefined}
    >
      <td className="nowrap">
        <button type="button" className="link" aria-expanded={open} onClick={onOpen} title="Its schema and diff">
          <Time iso={item.created_at_iso} digits={digits} />
        </button>
        {currentThen && (
          <div>
            <span className="tag" title="The version current at the time control's instant">
              current then
            </span>
          </div>
        )}
      </td>
      <td className="small">
        {item.created_by_run_id ? (
          <span className="mono" title={item.created_by_run_id}>
            {shortId(item.created_by_run_id)}
          </span>
        ) : (
          "—"
        )}
        {item.job && <div className="muted break">{item.job.name}</div>}
      </td>
      <td className="num">{formatCount(stats?.row_count ?? null)}</td>
      <td className="num">{stats?.bytes == null ? "—" : formatBytes(stats.bytes)}</td>
      <td className="small" data-testid="schema-change">
        {line ? (
          <span className="change-amber">△ {line}</span>
        ) : (
          <span className="muted">{previous ? "same" : older ? "—" : "first"}</span>
        )}
      </td>
    </tr>
  );
}

function VersionDetail({
  namespace,
  name,
  id,
  asOf,
}: {
  namespace: string;
  name: string;
  id: string;
  /** The time control's instant (null: now). A version made after it (a link can name one) says so. */
  asOf: string | null;
}) {
  const version = useDatasetVersion(namespace, name, id);
  if (version.error) return <Failure error={version.error} what="the version" onRetry={version.refetch} />;
  if (!version.data) return <Loading what="the version" />;
  const v = version.data;
  const later = asOf !== null && compareInstants(v.created_at_iso, asOf) > 0;
  return (
    <div className="version-detail" data-testid="version-detail">
      <h4>
        Version of <Time iso={v.created_at_iso} digits={3} zoned /> <span className="mono small muted">{shortId(v.id)}</span>
      </h4>
      {later && (
        <p className="small change-amber" role="note" data-testid="version-after-as-of">
          Made after <Instant iso={asOf} />, the time viewed: as of then this version did not exist yet, and
          the list above leaves it out.
        </p>
      )}
      <SchemaDiffView diff={v.diff} />
      <table className="table schema-table">
        <thead>
          <tr>
            <th>Field</th>
            <th>Type</th>
          </tr>
        </thead>
        <tbody>
          {v.fields.map((field) => (
            <tr key={field.name}>
              <td className="mono">{field.name}</td>
              <td className="mono">{field.type ?? "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A schema diff, field by field; each change says what it is in words and with an icon. */
export function SchemaDiffView({ diff }: { diff: SchemaDiff }) {
  const rows = [
    ...diff.added.map((f) => ({ key: `+${f.name}`, cls: "change-green", icon: "+", text: `${f.name} added (${f.type ?? "no type"})` })),
    ...diff.removed.map((f) => ({ key: `-${f.name}`, cls: "change-red", icon: "−", text: `${f.name} removed (${f.type ?? "no type"})` })),
    ...diff.type_changed.map((f) => ({
      key: `t${f.name}`,
      cls: "change-amber",
      icon: "△",
      text: `${f.name}: type ${f.before ?? "none"} → ${f.after ?? "none"}`,
    })),
    ...diff.description_changed.map((f) => ({ key: `d${f.name}`, cls: "change-amber", icon: "△", text: `${f.name}: description changed` })),
  ];
  if (rows.length === 0) {
    return <p className="muted small">{diff.previous_id ? "Same schema as the version before." : "The first version."}</p>;
  }
  return (
    <ul className="plain schema-diff" data-testid="schema-diff">
      {rows.map((row) => (
        <li key={row.key} className={row.cls}>
          <span aria-hidden>{row.icon}</span> {row.text}
        </li>
      ))}
    </ul>
  );
}
