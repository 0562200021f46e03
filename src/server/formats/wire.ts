/**
 * The parts of the JSON wire objects (contract A.1–A.4) the CSV and iCalendar renderers read, typed
 * loosely: every object stays open (`Record<string, unknown>`), and the keys A.2 omits when empty are
 * optional. TODO: replace with the wire types inferred from the zod model in src/model once the lead
 * wires them.
 */

/** A.4; `false` when there is none. */
export interface WireImage extends Record<string, unknown> {
  url: string;
  id?: number;
}

/** A.3a embedded term (`categories`, `tags`). */
export interface WireTerm extends Record<string, unknown> {
  name: string;
}

/** A.6. The wire writes `postfix`, the TEC CSV importer `suffix`. */
export interface WireCostDetails extends Record<string, unknown> {
  currency_symbol: string;
  currency_code: string;
  currency_position: string;
  values: string[];
}

/** A.2 venue: keys before `json_ld` are omitted when empty. */
export interface WireVenue extends Record<string, unknown> {
  id: number;
  venue?: string;
  description?: string;
  image?: WireImage | false;
  address?: string;
  city?: string;
  country?: string;
  province?: string;
  state?: string;
  zip?: string;
  phone?: string;
  website?: string;
  stateprovince?: string;
}

/** A.2 organizer: every empty key is omitted. */
export interface WireOrganizer extends Record<string, unknown> {
  id: number;
  organizer?: string;
  description?: string;
  image?: WireImage | false;
  phone?: string;
  website?: string;
  email?: string;
}

/**
 * A.1 event. Flags are `null` in a redacted list entry (A.10); `venue` is `[]` when there is none.
 * Dates are `YYYY-MM-DD HH:MM:SS`; `date_utc`/`modified_utc` may be `0000-00-00 00:00:00` (drafts).
 */
export interface WireEvent extends Record<string, unknown> {
  id: number;
  date_utc: string;
  modified_utc: string;
  url: string;
  title: string;
  description: string;
  excerpt: string;
  image: WireImage | false;
  all_day: boolean | null;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  cost_details: WireCostDetails;
  website: string;
  show_map: boolean | null;
  show_map_link: boolean | null;
  hide_from_listings: boolean | null;
  sticky: boolean | null;
  featured: boolean | null;
  categories: WireTerm[];
  tags: WireTerm[];
  venue: WireVenue | readonly never[];
  organizer: WireOrganizer[];
}

/** The embedded venue, or `undefined` for the wire's `[]`. */
export function venueOf(event: WireEvent): WireVenue | undefined {
  const v = event.venue;
  return Array.isArray(v) ? undefined : (v as WireVenue);
}

/** The image URL, or `''` for the wire's `false` / a missing key. */
export function imageUrl(image: WireImage | false | undefined): string {
  return image ? image.url : '';
}
