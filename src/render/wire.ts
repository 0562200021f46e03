/**
 * The JSON wire objects (contract A.1–A.4) the CSV and iCalendar renderers read: the types
 * inferred from the response schemas in src/model, the one source of truth.
 */
import type { z } from 'zod';
import type { EmbeddedTerm, Event, Image, Organizer, Venue } from '../model/index.ts';

export type WireEvent = z.output<typeof Event>;
export type WireVenue = z.output<typeof Venue>;
export type WireOrganizer = z.output<typeof Organizer>;
export type WireImage = z.output<typeof Image>;
export type WireTerm = z.output<typeof EmbeddedTerm>;
export type WireCostDetails = WireEvent['cost_details'];

/** The embedded venue, or `undefined` for the wire's `[]`. */
export function venueOf(event: WireEvent): WireVenue | undefined {
  const v = event.venue;
  return Array.isArray(v) ? undefined : (v as WireVenue);
}

/** The image URL, or `''` for the wire's `false` / a missing key. */
export function imageUrl(image: WireImage | false | undefined): string {
  return image ? image.url : '';
}
