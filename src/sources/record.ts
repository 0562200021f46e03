/**
 * What every source produces: event records at the level of single occurrences (recurring series are
 * already expanded within the pipeline's window), with the venue, organizers and terms they mention,
 * and problems found on the way. Sources never throw for one bad event or row: they report it here
 * and go on, so the rest is imported (spec/pipeline.md, "Plan, apply, report").
 */

/** Where a record came from: the file (or URL) and the 1-based line of its VEVENT or CSV row. */
export interface Origin {
  file: string;
  line?: number;
}

/**
 * A time as the source wrote it. The three kinds are kept distinct (an all-day date is not midnight,
 * a floating time is not UTC): the mapping resolves floating times with the pipeline's default zone.
 * - `date`: all-day, `YYYY-MM-DD`; as an end it is exclusive (RFC 5545 DTEND;VALUE=DATE).
 * - `zoned`: wall time `YYYY-MM-DD HH:MM:SS` in `zone`, an IANA name or `UTC` (`floating` when the zone
 *   was given by the reader — X-WR-TIMEZONE, the pipeline's zone — not by the source: identity then
 *   stays on the wall time, so that a change of that zone does not re-key a series).
 * - `floating`: wall time `YYYY-MM-DD HH:MM:SS` with no zone.
 */
export type TimeValue =
  /** `zone`: the zone the source gave the all-day event (TEC's CSV column), kept for the target. */
  | { kind: 'date'; date: string; zone?: string }
  | {
      kind: 'zoned';
      local: string;
      zone: string /** A floating time given a zone by the reader. */;
      floating?: true;
    }
  | { kind: 'floating'; local: string };

export interface VenueRecord {
  /** An explicit id from the source (a CSV venue id column), when it has one. */
  id?: string;
  name: string;
  /** From a venues CSV file beside the events (TEC's export writes one). */
  description?: string;
  address?: string;
  city?: string;
  province?: string;
  state?: string;
  zip?: string;
  country?: string;
  phone?: string;
  website?: string;
  /** Image URL (a venues CSV's featured_image). */
  image?: string;
  latitude?: number;
  longitude?: number;
}

export interface OrganizerRecord {
  id?: string;
  name: string;
  description?: string;
  email?: string;
  phone?: string;
  website?: string;
  /** Image URL (an organizers CSV's featured_image). */
  image?: string;
}

export interface EventRecord {
  origin: Origin;
  /**
   * Identity within the source, stable across runs: for .ics the UID (or, for a UID-less VEVENT, a hash of
   * DTSTART, SUMMARY and LOCATION) plus the instance for an occurrence of a series; for CSV the id column, or
   * a hash of title + start. The mapping prefixes it with the source.
   */
  key: string;
  /** The UID, for messages (`uid` of a UID-less VEVENT is its derived key). */
  uid?: string;
  /** RECURRENCE-ID (or occurrence start) of an instance of a series, as UTC `YYYY-MM-DDTHH:MM:SSZ` or a date. */
  instance?: string;
  title: string;
  /** Plain text or HTML, as the source has it. */
  description?: string;
  excerpt?: string;
  start: TimeValue;
  /** Same kind as `start`; a `date` end is exclusive. Sources fill it (DTEND, DURATION or the RFC defaults). */
  end: TimeValue;
  /** STATUS: CANCELLED events are handed on so that the plan can apply the deletion policy. */
  status?: 'confirmed' | 'tentative' | 'cancelled';
  url?: string;
  /** Cost as the source writes it (`"25"`, `"Free"`, `"10-25"`); contract A.6 decides. */
  cost?: string;
  /** ISO 4217 code of the cost's currency (`EUR`, upper case), when the source names one (a CSV column). */
  currencyCode?: string;
  featured?: boolean;
  /** TEC's display switches, when the source has them (TEC's CSV columns); else the pipeline's defaults. */
  display?: Partial<Record<'sticky' | 'hide_from_listings' | 'show_map' | 'show_map_link', boolean>>;
  /** Image URL (ATTACH/IMAGE, CSV featured_image). */
  image?: string;
  venue?: VenueRecord;
  organizers: OrganizerRecord[];
  categories: string[];
  tags: string[];
}

/** A problem with one part of the input; the rest is still read. */
export interface SourceProblem {
  /** Stable code, e.g. `ics_bad_line`, `ics_no_dtstart`, `csv_bad_row`, `csv_bad_date`. */
  code: string;
  message: string;
  origin: Origin;
  uid?: string;
  field?: string;
  /** `error`: the record was dropped; `warning`: it was read with a repair (say which in `message`). */
  severity: 'error' | 'warning';
}

/** A venue or organizer a source lists on its own (a venues or organizers CSV), with where it is. */
export type Standalone<T> = T & { origin: Origin };

export interface SourceResult {
  records: EventRecord[];
  /** Venues and organizers the source lists apart from any event (TEC's venues and organizers files). */
  standalone?: { venues: Standalone<VenueRecord>[]; organizers: Standalone<OrganizerRecord>[] };
  problems: SourceProblem[];
  /** Calendar-level facts: X-WR-CALNAME, X-WR-TIMEZONE … (empty for CSV). */
  calendar: { name?: string; description?: string; timezone?: string };
}

/** The recurrence window: occurrences starting in [from, to) are expanded. */
export interface Window {
  from: Date;
  to: Date;
}
