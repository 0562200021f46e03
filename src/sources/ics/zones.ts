// TZID → IANA zone name, the way real files need it (spec/pipeline.md, "Time"):
// 1. IANA names case-insensitively (`europe/berlin`), and paths that end in one (Thunderbird's old
//    `/mozilla.org/20050126_1/Europe/Berlin`, `/freeassociation.sourceforge.net/Tzfile/Europe/Berlin`);
// 2. Windows IDs (`W. Europe Standard Time`, Outlook/Exchange) through windows-iana's CLDR table, compared
//    case-insensitively (windows-iana itself is case-sensitive);
// 2b. Windows display labels (`(UTC+01:00) Amsterdam, Berlin, …`) by region name or city (zoneByLabel);
// 3. a custom VTIMEZONE whose name is none of these (Lotus Notes `TZID:Eastern`, Exchange
//    `Customized Time Zone`): the first well-known, then any, zone with the same standard and daylight offsets
//    in January and July. node-ical reads such a TZID as UTC, hours off.
// Every answer passes normalizeTimezone, so it is a name the rest of calsync accepts.

import { createRequire } from 'node:module';
import { normalizeTimezone, offsetAt, zoneInfo } from '../../model/timezone.ts';
import type { VTimezoneBlock } from './components.ts';

/**
 * windows-iana's tables, loaded on the first TZID that is not an IANA name (issue 17: ~3 MB of a process's
 * memory, which a file of IANA TZIDs never needs). It is CommonJS, so `require` loads it synchronously.
 */
let tables: typeof import('windows-iana') | undefined;
const windowsIana = () =>
  (tables ??= createRequire(import.meta.url)('windows-iana') as typeof import('windows-iana'));

let windowsNames: Map<string, string> | undefined;

function windowsToIana(name: string): string | undefined {
  if (windowsNames === undefined) {
    windowsNames = new Map();
    // The `001` territory row is CLDR's "golden" zone for the Windows ID.
    for (const row of windowsIana().WINDOWS_TO_IANA_MAP) {
      if (row.territory === '001') windowsNames.set(row.windowsName.toLowerCase(), row.iana[0]);
    }
  }
  return windowsNames.get(name.toLowerCase());
}

/** The zone a TZID names by itself (IANA, IANA path, Windows ID), or null. */
export function zoneByName(tzid: string): string | null {
  const name = tzid.trim().replace(/^"(.*)"$/, '$1');
  if (name === '') return null;
  const direct = normalizeTimezone(name);
  if (direct !== null) return direct;
  const windows = windowsToIana(name);
  if (windows !== undefined) return normalizeTimezone(windows);
  const labelled = zoneByLabel(name);
  if (labelled !== null) return labelled;
  if (name.includes('/')) {
    const segments = name.split('/').filter((s) => s !== '');
    for (let k = 1; k < segments.length; k++) {
      const zone = normalizeTimezone(segments.slice(k).join('/'));
      if (zone?.includes('/')) return zone;
    }
  }
  return null;
}

// Windows display labels: Outlook desktop writes `(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna`,
// Zimbra and old Exchange `(GMT-08.00) Pacific Time (US & Canada)`. CLDR has no table of these labels, so: the
// US/Canada region names below, else the first listed city that is an IANA zone with the label's standard offset.
const LABEL = /^\((?:UTC|GMT)(?:([+-])(\d{1,2})[:.]?(\d{2}))?\)\s*(.*)$/i;
const REGIONS: [RegExp, string][] = [
  [/^eastern time/i, 'America/New_York'],
  [/^central time/i, 'America/Chicago'],
  [/^mountain time/i, 'America/Denver'],
  [/^pacific time/i, 'America/Los_Angeles'],
  [/^alaska/i, 'America/Anchorage'],
  [/^hawaii/i, 'Pacific/Honolulu'],
  [/^atlantic time/i, 'America/Halifax'],
  [/^arizona/i, 'America/Phoenix'],
  [/^coordinated universal time|^utc$/i, 'UTC'],
];
let zonesByCity: Map<string, string[]> | undefined;

/** The minutes east of UTC a label names and the IANA zone it means, or null. */
export function labelOffset(name: string): number | null {
  const m = LABEL.exec(name.trim());
  if (m === null) return null;
  const minutes = m[1] === undefined ? 0 : Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function zoneByLabel(name: string): string | null {
  const m = LABEL.exec(name);
  const offset = labelOffset(name);
  if (m === null || offset === null) return null;
  const rest = m[4].trim();
  const region = REGIONS.find(([pattern]) => pattern.test(rest));
  if (region !== undefined) return normalizeTimezone(region[1]);
  if (zonesByCity === undefined) {
    // CLDR's aliases (windows-iana) know current names (Asia/Kolkata, where ICU lists Asia/Calcutta) and a
    // city for each zone ("Kolkata, India").
    zonesByCity = new Map();
    const add = (city: string, zone: string) => {
      const key = city.trim().replace(/\s+/g, '_').toLowerCase();
      if (normalizeTimezone(zone) !== null) zonesByCity?.set(key, [...(zonesByCity.get(key) ?? []), zone]);
    };
    for (const entry of windowsIana().IANA_ALIAS_MAP) {
      for (const zone of entry.alias) add(zone.split('/').at(-1) ?? '', zone);
      if (entry.alias[0] !== undefined)
        add(entry.description.split(',')[0], entry.alias.at(-1) ?? entry.alias[0]);
    }
  }
  for (const city of rest.split(',')) {
    const key = city.trim().replace(/\s+/g, '_').toLowerCase();
    for (const zone of zonesByCity.get(key) ?? []) {
      // The label gives the standard offset: the smaller of January's and July's.
      const info = zoneInfo(zone);
      if (Math.min(offsetAt(info, JANUARY), offsetAt(info, JULY)) === offset * 60_000)
        return normalizeTimezone(zone);
    }
  }
  return null;
}

// Tried first when matching offsets, so `Eastern` becomes America/New_York, not America/Detroit.
const PREFERRED = (
  'America/New_York America/Chicago America/Denver America/Phoenix America/Los_Angeles America/Anchorage ' +
  'Pacific/Honolulu America/Halifax America/St_Johns America/Sao_Paulo Europe/London Europe/Berlin ' +
  'Europe/Helsinki Europe/Moscow Asia/Kolkata Asia/Shanghai Asia/Tokyo Australia/Sydney Australia/Adelaide ' +
  'Australia/Brisbane Australia/Perth Pacific/Auckland Africa/Johannesburg'
).split(' ');
const JANUARY = Date.UTC(2026, 0, 15);
const JULY = Date.UTC(2026, 6, 15);

/** The zone a custom VTIMEZONE's offsets describe, or null. */
export function zoneByOffsets(vtimezone: VTimezoneBlock): string | null {
  const standard = vtimezone.standard.at(-1);
  if (standard === undefined) return null;
  const daylight = vtimezone.daylight.at(-1) ?? standard;
  if (daylight === standard && standard % 60 === 0) {
    // No DST: the Etc/GMT zones (POSIX signs: Etc/GMT-1 is UTC+1).
    const hours = standard / 60;
    return hours === 0 ? 'UTC' : normalizeTimezone(`Etc/GMT${hours > 0 ? '-' : '+'}${Math.abs(hours)}`);
  }
  const north = (vtimezone.daylightMonth ?? 3) <= 6;
  const [january, july] = north ? [standard, daylight] : [daylight, standard];
  const matches = (zone: string) => {
    const info = zoneInfo(zone);
    return offsetAt(info, JANUARY) === january * 60_000 && offsetAt(info, JULY) === july * 60_000;
  };
  const found = PREFERRED.find(matches) ?? Intl.supportedValuesOf('timeZone').find(matches);
  return found === undefined ? null : normalizeTimezone(found);
}

/** Resolves TZIDs of one file, remembering each answer. */
export class ZoneResolver {
  readonly #byTzid = new Map<string, string | null>();
  readonly #timezones: Map<string, VTimezoneBlock>;

  constructor(timezones: VTimezoneBlock[]) {
    this.#timezones = new Map(timezones.map((z) => [z.tzid, z]));
  }

  /** The IANA zone (or `UTC`) of `tzid`, or null when neither its name nor its VTIMEZONE tells. */
  resolve(tzid: string): string | null {
    let zone = this.#byTzid.get(tzid);
    if (zone !== undefined) return zone;
    zone = zoneByName(tzid);
    if (zone === null) {
      const vtimezone = this.#timezones.get(tzid) ?? this.#timezones.get(tzid.replace(/^"(.*)"$/, '$1'));
      if (vtimezone !== undefined) zone = zoneByOffsets(vtimezone);
    }
    if (zone === null) {
      // A label whose cities we do not know and no VTIMEZONE: at least its standard offset.
      const offset = labelOffset(tzid.replace(/^"(.*)"$/, '$1'));
      if (offset !== null)
        zone = normalizeTimezone(
          `UTC${offset < 0 ? '-' : '+'}${Math.floor(Math.abs(offset) / 60)}:${String(Math.abs(offset) % 60).padStart(2, '0')}`,
        );
    }
    this.#byTzid.set(tzid, zone);
    return zone;
  }
}
