// The .ics source: bytes of an iCalendar file → EventRecords (see read.ts).
export { type ReadIcsOptions, readIcs } from './read.ts';
