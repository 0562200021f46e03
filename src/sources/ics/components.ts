// Content lines → the parts of a calendar the reader uses: calendar properties (X-WR-*), VTIMEZONEs (their
// TZID and observance offsets, for zones no name lookup resolves) and VEVENTs with the line of their
// BEGIN:VEVENT, one VEVENT at a time (ComponentReader). Nested components inside a VEVENT (VALARM) are skipped. A file that ends inside a VEVENT
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

/** All parts at once (the VEVENT blocks kept): for small inputs and tests. */
export function splitComponents(lines: Iterable<ContentLine>, file: string): CalendarParts {
  const events: VEventBlock[] = [];
  const reader = new ComponentReader(file, (event) => events.push(event));
  for (const l of lines) reader.line(l);
  return { ...reader.end(), events };
}

/**
 * Content lines in, one at a time; each VEVENT is handed to `onEvent` as soon as its END:VEVENT arrives, so
 * a reader can turn it into a record and drop its lines. `end()` gives the rest of the parts (and `events`
 * empty: they went to `onEvent`).
 */
export class ComponentReader {
  readonly #parts: CalendarParts = { calendar: {}, timezones: [], events: [], problems: [] };
  readonly #stack: string[] = [];
  readonly #file: string;
  readonly #onEvent: (event: VEventBlock) => void;
  #event: VEventBlock | null = null;
  #zone: VTimezoneBlock | null = null;
  #observance: 'STANDARD' | 'DAYLIGHT' | null = null;
  #sawCalendar = false;
  #endedCalendar = false;
  #eventCount = 0;

  constructor(file: string, onEvent: (event: VEventBlock) => void) {
    this.#file = file;
    this.#onEvent = onEvent;
  }

  /** Whether a VEVENT is being read (its BEGIN came, its END not yet). */
  get inEvent(): boolean {
    return this.#event !== null;
  }

  /** What has been read so far (the calendar's properties, the VTIMEZONEs). */
  get parts(): Pick<CalendarParts, 'calendar' | 'timezones'> {
    return this.#parts;
  }

  line(l: ContentLine): void {
    const parts = this.#parts;
    const stack = this.#stack;
    const file = this.#file;
    if (l.name === 'BEGIN') {
      const kind = l.value.trim().toUpperCase();
      if (kind === 'VEVENT') {
        if (this.#event !== null) {
          parts.problems.push(
            problem('error', ICS_PROBLEMS.unterminated, 'dropped a VEVENT without END:VEVENT', {
              file,
              line: this.#event.line,
            }),
          );
          stack.length = stack.lastIndexOf('VEVENT');
        }
        this.#event = { line: l.line, props: [] };
      } else if (kind === 'VCALENDAR') this.#sawCalendar = true;
      else if (kind === 'VTIMEZONE') this.#zone = { tzid: '', standard: [], daylight: [] };
      else if (this.#zone !== null && (kind === 'STANDARD' || kind === 'DAYLIGHT')) this.#observance = kind;
      stack.push(kind);
      return;
    }
    if (l.name === 'END') {
      const kind = l.value.trim().toUpperCase();
      const at = stack.lastIndexOf(kind);
      if (at !== -1) stack.length = at;
      if (kind === 'VEVENT' && this.#event !== null) {
        const event = this.#event;
        this.#event = null;
        this.#eventCount++;
        this.#onEvent(event);
      } else if (kind === 'VTIMEZONE' && this.#zone !== null) {
        if (this.#zone.tzid !== '') parts.timezones.push(this.#zone);
        this.#zone = null;
      } else if (kind === 'STANDARD' || kind === 'DAYLIGHT') this.#observance = null;
      else if (kind === 'VCALENDAR') this.#endedCalendar = true;
      return;
    }
    const top = stack[stack.length - 1];
    if (this.#event !== null) {
      if (top === 'VEVENT') this.#event.props.push(l);
    } else if (this.#zone !== null) {
      readZoneLine(this.#zone, this.#observance, l);
    } else if (top === 'VCALENDAR') {
      readCalendarLine(parts.calendar, l);
    }
  }

  end(): CalendarParts {
    const parts = this.#parts;
    const file = this.#file;
    if (this.#event !== null) {
      parts.problems.push(
        problem(
          'error',
          ICS_PROBLEMS.truncated,
          `file ends inside a VEVENT; read the ${this.#eventCount} complete ones`,
          {
            file,
            line: this.#event.line,
          },
        ),
      );
    } else if (this.#sawCalendar && !this.#endedCalendar) {
      parts.problems.push(
        problem('error', ICS_PROBLEMS.truncated, 'file ends without END:VCALENDAR', { file }),
      );
    }
    if (!this.#sawCalendar && this.#eventCount === 0) {
      parts.problems.push(
        problem('error', ICS_PROBLEMS.notCalendar, 'expected BEGIN:VCALENDAR, found none', { file }),
      );
    }
    return parts;
  }
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
