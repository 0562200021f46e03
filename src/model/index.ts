/** One source of truth for the calendar/events/v1 wire formats, shared by server and client. */
export { ApiError, CostDetails, DateDetails, Image, ImageSize } from './common.ts';
export { EVENT_NULLABLE, Event, EventList, EventWrite, type EventWriteInput } from './event.ts';
export type { Kind } from './kind.ts';
export { Organizer, OrganizerWrite, type OrganizerWriteInput } from './organizer.ts';
export { wpBoolean, wpInteger } from './primitives.ts';
export {
  type EventListParams,
  EventListQuery,
  type LinkedListParams,
  LinkedListQuery,
  OrganizerList,
  TagListQuery,
  type TermListParams,
  TermListQuery,
  VenueList,
} from './queries.ts';
export { OrganizerRefs, type Ref, type TermRef, TermRefs, VenueRef } from './refs.ts';
export { PERMALINK_STATUSES, ROLES, type Role, STATUSES, type Status, WRITABLE_STATUSES } from './status.ts';
export {
  Category,
  CategoryList,
  CategoryWrite,
  EmbeddedTerm,
  TAXONOMIES,
  Tag,
  TagList,
  TagWrite,
  type TermKind,
  type TermWriteInput,
} from './term.ts';
export { Venue, VenueWrite, type VenueWriteInput } from './venue.ts';
