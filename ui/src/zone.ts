// The browser's time zone, named. Every time the UI shows is in it
// (format.ts), and a local time typed is read in it (history/instant.ts);
// the API and the docs speak UTC. So the zone is named where times are typed
// (components/InstantField.tsx), in each column of times and beside each time
// in a sentence (components/Time.tsx), and each shown time's tooltip gives
// its UTC instant (format.exactTime).

/** Names a browser at UTC may give its zone (all of them UTC itself). */
const UTC_NAMES = /^(?:Etc\/)?(?:UTC|UCT|GMT|GMT[+-]0|Universal|Zulu|Greenwich)$/i;

/**
 * Old names ICU (the browser's Intl) still gives some zones, and the names the
 * IANA database, Python and the logs use now ("Asia/Kolkata", where Chromium
 * says "Asia/Calcutta"). Any other name is shown as the browser gives it.
 */
const CURRENT_NAMES: Record<string, string> = {
  "America/Buenos_Aires": "America/Argentina/Buenos_Aires",
  "America/Catamarca": "America/Argentina/Catamarca",
  "America/Cordoba": "America/Argentina/Cordoba",
  "America/Godthab": "America/Nuuk",
  "America/Indianapolis": "America/Indiana/Indianapolis",
  "America/Jujuy": "America/Argentina/Jujuy",
  "America/Louisville": "America/Kentucky/Louisville",
  "America/Mendoza": "America/Argentina/Mendoza",
  "Asia/Calcutta": "Asia/Kolkata",
  "Asia/Katmandu": "Asia/Kathmandu",
  "Asia/Rangoon": "Asia/Yangon",
  "Asia/Saigon": "Asia/Ho_Chi_Minh",
  "Atlantic/Faeroe": "Atlantic/Faroe",
  "Europe/Kiev": "Europe/Kyiv",
  "Pacific/Enderbury": "Pacific/Kanton",
  "Pacific/Ponape": "Pacific/Pohnpei",
  "Pacific/Truk": "Pacific/Chuuk",
};

const pad = (n: number) => String(n).padStart(2, "0");

let named: string | undefined;

/**
 * The browser's time zone: its IANA name ("Asia/Kolkata"), "UTC" for UTC
 * under any of its names, or its UTC offset now ("UTC-05:00") when the
 * browser names none (or only an Etc/GMT±n one, whose sign reads backwards).
 */
export function zoneName(): string {
  if (named === undefined) {
    let name: string | undefined;
    try {
      name = Intl.DateTimeFormat().resolvedOptions().timeZone;
    } catch {
      name = undefined;
    }
    if (name && UTC_NAMES.test(name)) named = "UTC";
    else if (name && !name.startsWith("Etc/")) named = CURRENT_NAMES[name] ?? name;
    else named = utcOffset(new Date());
  }
  return named;
}

/**
 * The browser zone's offset from UTC at `date`, "UTC+05:30" ("UTC+00:00" at
 * none; with seconds for an old local mean time, "UTC+05:53:28").
 */
export function utcOffset(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const seconds = Math.round(Math.abs(minutes) * 60);
  const [h, m, s] = [Math.floor(seconds / 3600), Math.floor((seconds % 3600) / 60), seconds % 60];
  return `UTC${minutes < 0 ? "-" : "+"}${pad(h)}:${pad(m)}${s ? `:${pad(s)}` : ""}`;
}

/**
 * The zone a typed time is read in: "UTC" for one with Z, "UTC+02:00" for
 * one with an offset, else (a local time, or text that is none yet) the browser's.
 */
export function zoneOfTyped(text: string): string {
  const found = /(?:\d\d:\d\d(?::\d\d(?:[.,]\d+)?)?)(?:([Zz])|([+-])(\d\d)(?::?(\d\d))?)\s*$/.exec(text);
  if (!found) return zoneName();
  if (found[1]) return "UTC";
  return `UTC${found[2]}${found[3]}:${found[4] ?? "00"}`;
}
