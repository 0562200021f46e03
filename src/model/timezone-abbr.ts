// `timezone_abbr` (A.1): a zone's abbreviation at an instant as PHP prints it from tzdata. Intl's short
// names of English locales supply most letters; a table corrects them where they disagree with tzdata
// (2025b). Memoised per zone and offset.

import { wireToMs } from './civil-time.ts';
import { formatOffset, offsetAt, words, type Zone, type ZoneInfo, zoneInfo } from './timezone.ts';

const abbrCache = new WeakMap<ZoneInfo, Map<number, string>>(); // per zone: offset in ms → abbreviation

/**
 * `timezone_abbr` (A.1) at the instant `utc`, as PHP prints it from tzdata: `EST`, `CEST`, `GMT`/`BST`,
 * `UTC`; a fixed-offset zone repeats its name (`UTC+2`); zones tzdata gives no letters get the numeric
 * offset (`+03`, `+0530`).
 */
export function timezoneAbbr(zone: Zone, utc: string): string {
  const info = zoneInfo(zone);
  if (info.iana === null) return info.name;
  const ms = wireToMs(utc);
  const offset = offsetAt(info, ms);
  let abbrs = abbrCache.get(info);
  if (abbrs === undefined) {
    abbrs = new Map();
    abbrCache.set(info, abbrs);
  }
  let abbr = abbrs.get(offset);
  if (abbr === undefined) {
    abbr = lookUpAbbr(info.name, ms, offset);
    abbrs.set(offset, abbr);
  }
  return abbr;
}

// Intl has no English short name for many zones (en-US says `GMT+1` for Berlin), but each English
// locale knows its region's: the first answer that is not `GMT±…` wins.
const ABBR_LOCALES = words('en-US en-GB en-AU en-IN en-NZ en-CA en-IE en-ZA en-HK en-ID');
const GMT_LIKE = /^(?:GMT|UTC)(?:[+\-−]|$)/;

// Where those locales and tzdata disagree (checked against tzdata 2025b with zdump), by ICU zone name:
// letters tzdata has at an offset (in minutes) that no English locale knows, or gets wrong...
// biome-ignore format: a table reads better packed
const TZDATA_ABBRS: Record<string, string> = {
  'JST 540': 'Asia/Tokyo', 'KST 540': 'Asia/Seoul Asia/Pyongyang', 'PKT 300': 'Asia/Karachi',
  'CST 480': 'Asia/Shanghai Asia/Macau Asia/Taipei', 'PST 480': 'Asia/Manila',
  'IST 120': 'Asia/Jerusalem', 'IDT 180': 'Asia/Jerusalem', 'CST -300': 'America/Havana', 'CDT -240': 'America/Havana',
  'MSK 180': 'Europe/Moscow Europe/Simferopol Europe/Kirov Europe/Volgograd',
  'SST -660': 'Pacific/Pago_Pago Pacific/Midway', 'ChST 600': 'Pacific/Guam Pacific/Saipan',
  'MST -420': 'America/Hermosillo America/Mazatlan America/Whitehorse America/Dawson',
  'HST -600': 'America/Adak', 'HDT -540': 'America/Adak', 'BST 60': 'Europe/Guernsey Europe/Isle_of_Man Europe/Jersey',
  'GMT 0': 'Etc/GMT Etc/GMT0 Etc/GMT+0 Etc/GMT-0 Etc/Greenwich GMT0 GMT+0 GMT-0 Greenwich', 'MET 60': 'MET', 'MEST 120': 'MET',
};
// ...and zones where a locale offers letters (`GST`, `AWST`, `LHDT`…) but tzdata has only the numeric offset.
const NUMERIC_ABBR_ZONES = new Set([
  ...words('Asia/Dubai Asia/Muscat Asia/Colombo Antarctica/Casey Antarctica/Troll Australia/Eucla'),
  ...words('Australia/Lord_Howe Pacific/Chatham America/Miquelon Africa/Casablanca Africa/El_Aaiun'),
]);
let tzdataAbbrs: Map<string, string> | undefined;

function lookUpAbbr(zone: Zone, ms: number, offset: number): string {
  tzdataAbbrs ??= new Map(
    Object.entries(TZDATA_ABBRS).flatMap(([key, zones]) => {
      const [abbr, minutes] = key.split(' ');
      return zones.split(' ').map((z): [string, string] => [`${z} ${minutes}`, abbr]);
    }),
  );
  const formatters = ABBR_LOCALES.map(
    (l) => new Intl.DateTimeFormat(l, { timeZone: zone, timeZoneName: 'short' }),
  );
  const numeric = formatOffset(offset, '', false);
  for (const name of [zone, formatters[0].resolvedOptions().timeZone]) {
    const abbr = tzdataAbbrs.get(`${name} ${offset / 60_000}`);
    if (abbr !== undefined) return abbr;
    if (NUMERIC_ABBR_ZONES.has(name)) return numeric;
  }
  let plain: string | undefined; // `GMT` for London in winter, `UTC` for Etc/UTC
  for (const formatter of formatters) {
    const name = formatter.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? '';
    if (name !== '' && !GMT_LIKE.test(name)) return name;
    if (name === 'GMT' || name === 'UTC') plain ??= name;
  }
  return offset === 0 && plain !== undefined ? plain : numeric;
}
