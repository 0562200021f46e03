// Text → content lines (RFC 5545 §3.1): unfolded, split into name, parameters and value, each with the
// 1-based physical line it starts on — node-ical gives no line numbers, and every record and problem needs
// one. Lines real software writes against the RFC are repaired here, before node-ical sees them, and each
// repair is reported as a warning (spec/pipeline.md, "Parsing .ics written by real software"):
// - a continuation line without the leading blank (WordPress plugins writing raw newlines in DESCRIPTION),
// - `TZID="Europe/Berlin:20270301T190000"` (the quote swallowing the value; seen from Lotus Notes exports),
// - blanks inside an RRULE (`FREQ=WEEKLY; BYDAY=MO`),
// - an 8-digit DTSTART/DTEND/EXDATE/RDATE/RECURRENCE-ID without VALUE=DATE.

import type { SourceProblem } from '../record.ts';
import { ICS_PROBLEMS, problem } from './errors.ts';

export interface ContentLine {
  /** Upper-case property name. */
  name: string;
  /** Parameters as written, each `NAME=value` (quotes kept), in order. */
  params: string[];
  value: string;
  /** 1-based physical line of the property's first line. */
  line: number;
}

// RFC 5545 §3.7–3.8, RFC 7986 and the components' names: anything else without `X-` that looks like
// `WORD:` at the start of a line is taken as text that lost its fold ("Note: bring food").
const KNOWN_NAMES = new Set(
  (
    'BEGIN END VERSION PRODID CALSCALE METHOD UID DTSTAMP DTSTART DTEND DURATION DUE COMPLETED SUMMARY ' +
    'DESCRIPTION LOCATION GEO URL STATUS CATEGORIES ORGANIZER ATTENDEE ATTACH IMAGE RRULE RDATE EXDATE ' +
    'EXRULE RECURRENCE-ID SEQUENCE CLASS TRANSP PRIORITY CREATED LAST-MODIFIED COMMENT CONTACT RELATED-TO ' +
    'RESOURCES REQUEST-STATUS TZID TZNAME TZOFFSETFROM TZOFFSETTO TZURL TZUNTIL TZID-ALIAS-OF ACTION TRIGGER ' +
    'REPEAT NAME COLOR REFRESH-INTERVAL SOURCE CONFERENCE PERCENT-COMPLETE FREEBUSY STYLED-DESCRIPTION ' +
    'STRUCTURED-DATA LOCATION-TYPE PARTICIPANT-TYPE CALENDAR-ADDRESS ACKNOWLEDGED PROXIMITY'
  ).split(' '),
);
const PROPERTY_START = /^([A-Za-z0-9-]+)[;:]/;
const DATE_PROPERTIES = new Set(['DTSTART', 'DTEND', 'EXDATE', 'RDATE', 'RECURRENCE-ID']);
const QUOTED_TZID_VALUE = /^(.*;TZID=)"([^":]+):([^"]*)"$/i;

export interface LinesResult {
  lines: ContentLine[];
  problems: SourceProblem[];
}

/** The content lines of `text`; problems name `file` and the physical line. */
export function contentLines(text: string, file: string): LinesResult {
  const problems: SourceProblem[] = [];
  return { lines: [...eachContentLine(text, file, problems)], problems };
}

const LINE_BREAK = /\r\n|\n|\r/g;

/**
 * The content lines of `text` one at a time, problems pushed to `problems` as they are found: the reader
 * handles each VEVENT as it ends, so the lines of a 20,000-event file are never all in memory at once.
 */
export function* eachContentLine(
  text: string,
  file: string,
  problems: SourceProblem[],
): Generator<ContentLine> {
  let pending = '';
  let pendingLine = 0;
  let position = 0;
  let number = 0;
  while (position <= text.length) {
    LINE_BREAK.lastIndex = position;
    const lineBreak = LINE_BREAK.exec(text);
    const end = lineBreak === null ? text.length : lineBreak.index;
    const physical = text.slice(position, end);
    position = lineBreak === null ? text.length + 1 : end + lineBreak[0].length;
    number++;
    if (physical === '') continue;
    const first = physical.charCodeAt(0);
    if (first === 32 || first === 9) {
      // RFC 5545 §3.1: a fold is CRLF followed by one blank, both removed.
      if (pending !== '') pending += physical.slice(1);
      continue;
    }
    const start = PROPERTY_START.exec(physical);
    if (start !== null || pending === '') {
      const name = start?.[1].toUpperCase() ?? '';
      if (start !== null && (KNOWN_NAMES.has(name) || name.startsWith('X-'))) {
        if (pending !== '') {
          const parsed = splitLine(pending, pendingLine, file, problems);
          if (parsed !== null) yield parsed;
        }
        pending = physical;
        pendingLine = number;
        continue;
      }
      if (pending === '') {
        problems.push(
          problem('warning', ICS_PROBLEMS.badLine, `skipped a line that is no property`, {
            file,
            line: number,
          }),
        );
        continue;
      }
    }
    // A line break the writer did not fold: most often a raw newline inside a text value, so keep it.
    problems.push(
      problem(
        'warning',
        ICS_PROBLEMS.repairedLine,
        'joined a continuation line that lacks its leading blank',
        {
          file,
          line: number,
        },
      ),
    );
    pending += `\\n${physical}`;
  }
  if (pending !== '') {
    const parsed = splitLine(pending, pendingLine, file, problems);
    if (parsed !== null) yield parsed;
  }
}

function splitLine(text: string, line: number, file: string, problems: SourceProblem[]): ContentLine | null {
  const quoted = text.includes('TZID="') ? QUOTED_TZID_VALUE.exec(text) : null;
  if (quoted !== null) {
    text = `${quoted[1]}${quoted[2]}:${quoted[3]}`;
    problems.push(
      problem('warning', ICS_PROBLEMS.repairedLine, 'moved the value out of a quoted TZID', { file, line }),
    );
  }
  // The value starts at the first colon outside a quoted parameter value (RFC 5545 §3.2).
  let colon = text.indexOf(':');
  const quote = text.indexOf('"');
  if (quote !== -1 && quote < colon) colon = colonOutsideQuotes(text);
  if (colon === -1) {
    problems.push(
      problem('warning', ICS_PROBLEMS.badLine, 'skipped a property without a value', { file, line }),
    );
    return null;
  }
  const head = text.slice(0, colon).split(';');
  const name = head[0].toUpperCase();
  const params = head.slice(1);
  let value = text.slice(colon + 1);
  if ((name === 'RRULE' || name === 'EXRULE') && /\s/.test(value)) {
    value = value.replace(/\s+/g, '');
    problems.push(
      problem('warning', ICS_PROBLEMS.repairedLine, `removed blanks inside ${name}`, { file, line }),
    );
  } else if (DATE_PROPERTIES.has(name) && /^\s*\d{8}\s*(?:,\s*\d{8}\s*)*$/.test(value)) {
    if (!params.some((p) => /^VALUE=/i.test(p))) {
      params.push('VALUE=DATE');
      problems.push(
        problem(
          'warning',
          ICS_PROBLEMS.repairedLine,
          `read the 8-digit ${name} as a DATE (VALUE=DATE missing)`,
          {
            file,
            line,
            field: name,
          },
        ),
      );
    }
    value = value.replace(/\s+/g, '');
  }
  return { name, params, value, line };
}

function colonOutsideQuotes(text: string): number {
  let inQuote = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) inQuote = !inQuote;
    else if (c === 58 && !inQuote) return i;
  }
  return -1;
}

/** The value of parameter `name` (case-insensitive), quotes removed, or undefined. */
export function param(line: ContentLine, name: string): string | undefined {
  const prefix = `${name.toUpperCase()}=`;
  for (const p of line.params) {
    if (p.length >= prefix.length && p.slice(0, prefix.length).toUpperCase() === prefix) {
      const value = p.slice(prefix.length);
      return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    }
  }
  return undefined;
}

/** RFC 5545 §3.3.11 TEXT unescaping: `\n`, `\,`, `\;`, `\\`. */
export function unescapeText(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(/\\([nN,;\\])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}
