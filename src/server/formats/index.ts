/**
 * Representations behind content negotiation (contract B.12, D6): pure functions from the JSON wire
 * objects to response bodies.
 */

export type { IcalOptions } from '../../export/ical.ts';
export { eventsToIcal } from '../../export/ical.ts';
export type { CsvOptions } from '../../render/csv.ts';
export {
  EVENT_CSV_COLUMNS,
  eventsToCsv,
  ORGANIZER_CSV_COLUMNS,
  organizersToCsv,
  VENUE_CSV_COLUMNS,
  venuesToCsv,
} from '../../render/csv.ts';
export type {
  WireCostDetails,
  WireEvent,
  WireImage,
  WireOrganizer,
  WireTerm,
  WireVenue,
} from '../../render/wire.ts';
export type { MediaType } from './negotiate.ts';
export { contentType, negotiate } from './negotiate.ts';
export { toXml } from './xml.ts';
