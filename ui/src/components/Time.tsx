// An instant as the lists show it: in the browser's time zone, to the
// second, or finer when the list needs it (`digits`: see format.timeDigits);
// its tooltip gives it exactly, to the microsecond, and as the API says it.

import { exactTime, formatTime } from "../format";

export function Time({ iso, digits = 0 }: { iso: string | null | undefined; digits?: 0 | 3 | 6 }) {
  if (!iso) return <>—</>;
  return (
    <time dateTime={iso} title={exactTime(iso)}>
      {formatTime(iso, digits)}
    </time>
  );
}
