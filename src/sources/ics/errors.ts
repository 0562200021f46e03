// Problems the .ics source reports: one stable code each (tests assert codes, not wording), built with the
// file, line, UID and field they concern. A `warning` means the VEVENT was read after a repair; an `error`
// means it was dropped and the rest of the file was read (spec/pipeline.md, "Plan, apply, report").

export const ICS_PROBLEMS = {
  /** Not iCalendar at all: no BEGIN:VCALENDAR and no VEVENT. */
  notCalendar: 'ics_not_calendar',
  /** The file ends inside a component (a cut download): the complete VEVENTs before it are read. */
  truncated: 'ics_truncated',
  /** A VEVENT without END:VEVENT followed by another BEGIN:VEVENT: dropped. */
  unterminated: 'ics_unterminated_vevent',
  /** A line written against RFC 5545 that was repaired (unfolded continuation, quoting, blanks, bare dates). */
  repairedLine: 'ics_repaired_line',
  /** A line that is no property at all and could not be joined to one. */
  badLine: 'ics_bad_line',
  noDtstart: 'ics_no_dtstart',
  /** No SUMMARY (optional in RFC 5545): imported with the placeholder title calendar apps show. */
  noSummary: 'ics_no_summary',
  badDate: 'ics_bad_date',
  endBeforeStart: 'ics_end_before_start',
  /** A TZID that names no known zone: the time is read like a floating one. */
  unknownZone: 'ics_unknown_zone',
  /** An RRULE the recurrence engine rejects: the VEVENT is read as a single event. */
  badRrule: 'ics_bad_rrule',
  /** A VEVENT whose properties could not be read (from node-ical's parser, not used since issue 17). */
  badVevent: 'ics_bad_vevent',
  /** The same UID (and RECURRENCE-ID) twice: the higher SEQUENCE, else the later one, wins. */
  duplicate: 'ics_duplicate',
} as const;

export { type ProblemAt, problem } from '../problem.ts';

/** The title of an event without SUMMARY, as Google Calendar and Outlook show one. */
export const NO_TITLE = '(No title)';
