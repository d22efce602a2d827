// An instant as the UI shows it: in the browser's time zone, to the second,
// or finer when a list needs it (`digits`: see format.timeDigits); its
// tooltip gives its UTC instant as the API says it, and it exactly in the
// browser's zone (format.exactTime). A time in a column is shown bare, its
// zone named in the column's header (ZonedHeader); one in a sentence names
// its zone after it (`zoned`, or Instant: the fraction it has).

import { exactTime, formatTime } from "../format";
import { fractionDigits } from "../history/instant";
import { zoneName } from "../zone";

interface Props {
  iso: string | null | undefined;
  digits?: 0 | 3 | 6;
  /** Its zone named after it ("2026-12-01 10:00:00 Asia/Kolkata"): a time outside a column of times. */
  zoned?: boolean;
}

export function Time({ iso, digits = 0, zoned = false }: Props) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {formatTime(iso, digits)}
      {zoned && ` ${zoneName()}`}
    </time>
  );
}

/** An instant in a sentence: with the fraction it has, its zone named. */
export function Instant({ iso }: { iso: string | null | undefined }) {
  return <Time iso={iso} digits={iso ? fractionDigits(iso) : 0} zoned />;
}

/** A column of times' header: "Started (Asia/Kolkata)", the zone its times are shown in. */
export function ZonedHeader({ label }: { label: string }) {
  return (
    <>
      {label} <span className="zone-name">({zoneName()})</span>
    </>
  );
}
