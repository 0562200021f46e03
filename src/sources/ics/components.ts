// Content lines → the parts of a calendar the reader uses: calendar properties (X-WR-*), VTIMEZONEs (their
// TZID and observance offsets, for zones no name lookup resolves) and VEVENTs with the line of their
// BEGIN:VEVENT. Nested components inside a VEVENT (VALARM) are skipped. A file that ends inside a VEVENT
// (a cut download) keeps the complete VEVENTs before it and reports the cut once as a warning.

import type { SourceProblem } from '../record.ts';
import { ICS_PROBLEMS, problem } from './errors.ts';
import { type ContentLine, unescapeText } from './lines.ts';

export interface VEventBlock {
  /** 1-based line of BEGIN:VEVENT. */
  line: number;
  props: ContentLine[];
}

export interface VTimezoneBlock {
  tzid: string;
  /** TZOFFSETTO of STANDARD observances, in minutes east of UTC. */
  standard: number[];
  daylight: number[];
  /** Month (1–12) of the DTSTART of the first DAYLIGHT observance: tells north from south. */
  daylightMonth?: number;
}

export interface CalendarParts {
  calendar: { name?: string; description?: string; timezone?: string };
  timezones: VTimezoneBlock[];
  events: VEventBlock[];
  problems: SourceProblem[];
}

export function splitComponents(lines: ContentLine[], file: string): CalendarParts {
  const parts: CalendarParts = { calendar: {}, timezones: [], events: [], problems: [] };
  const stack: string[] = [];
  let event: VEventBlock | null = null;
  let zone: VTimezoneBlock | null = null;
  let observance: 'STANDARD' | 'DAYLIGHT' | null = null;
  let sawCalendar = false;
  let endedCalendar = false;
  for (const l of lines) {
    if (l.name === 'BEGIN') {
      const kind = l.value.trim().toUpperCase();
      if (kind === 'VEVENT') {
        if (event !== null) {
          parts.problems.push(
            problem('error', ICS_PROBLEMS.unterminated, 'dropped a VEVENT without END:VEVENT', {
              file,
              line: event.line,
            }),
          );
          stack.length = stack.lastIndexOf('VEVENT');
        }
        event = { line: l.line, props: [] };
      } else if (kind === 'VCALENDAR') sawCalendar = true;
      else if (kind === 'VTIMEZONE') zone = { tzid: '', standard: [], daylight: [] };
      else if (zone !== null && (kind === 'STANDARD' || kind === 'DAYLIGHT')) observance = kind;
      stack.push(kind);
      continue;
    }
    if (l.name === 'END') {
      const kind = l.value.trim().toUpperCase();
      const at = stack.lastIndexOf(kind);
      if (at !== -1) stack.length = at;
      if (kind === 'VEVENT' && event !== null) {
        parts.events.push(event);
        event = null;
      } else if (kind === 'VTIMEZONE' && zone !== null) {
        if (zone.tzid !== '') parts.timezones.push(zone);
        zone = null;
      } else if (kind === 'STANDARD' || kind === 'DAYLIGHT') observance = null;
      else if (kind === 'VCALENDAR') endedCalendar = true;
      continue;
    }
    const top = stack[stack.length - 1];
    if (event !== null) {
      if (top === 'VEVENT') event.props.push(l);
    } else if (zone !== null) {
      readZoneLine(zone, observance, l);
    } else if (top === 'VCALENDAR') {
      readCalendarLine(parts.calendar, l);
    }
  }
  if (event !== null) {
    parts.problems.push(
      problem(
        'warning',
        ICS_PROBLEMS.truncated,
        `file ends inside a VEVENT; read the ${parts.events.length} complete ones`,
        {
          file,
          line: event.line,
        },
      ),
    );
  } else if (sawCalendar && !endedCalendar) {
    parts.problems.push(
      problem('warning', ICS_PROBLEMS.truncated, 'file ends without END:VCALENDAR', { file }),
    );
  }
  if (!sawCalendar && parts.events.length === 0) {
    parts.problems.push(
      problem('error', ICS_PROBLEMS.notCalendar, 'expected BEGIN:VCALENDAR, found none', { file }),
    );
  }
  return parts;
}

function readZoneLine(
  zone: VTimezoneBlock,
  observance: 'STANDARD' | 'DAYLIGHT' | null,
  l: ContentLine,
): void {
  if (observance === null) {
    if (l.name === 'TZID') zone.tzid = l.value.trim();
    return;
  }
  if (l.name === 'TZOFFSETTO') {
    const minutes = offsetMinutes(l.value);
    if (minutes !== null) (observance === 'STANDARD' ? zone.standard : zone.daylight).push(minutes);
  } else if (l.name === 'DTSTART' && observance === 'DAYLIGHT' && zone.daylightMonth === undefined) {
    const month = Number(l.value.slice(4, 6));
    if (month >= 1 && month <= 12) zone.daylightMonth = month;
  }
}

// RFC 5545 §3.3.14 UTC-OFFSET: `+0100`, `-0530`, `+013000`.
function offsetMinutes(value: string): number | null {
  const m = /^([+-])(\d\d)(\d\d)(\d\d)?$/.exec(value.trim());
  if (!m) return null;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function readCalendarLine(calendar: CalendarParts['calendar'], l: ContentLine): void {
  const value = unescapeText(l.value).trim();
  if (value === '') return;
  if (l.name === 'X-WR-CALNAME' || (l.name === 'NAME' && calendar.name === undefined)) calendar.name = value;
  else if (l.name === 'X-WR-CALDESC' || (l.name === 'DESCRIPTION' && calendar.description === undefined)) {
    calendar.description = value;
  } else if (l.name === 'X-WR-TIMEZONE') calendar.timezone = value;
}
