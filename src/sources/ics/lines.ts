// Text → content lines (RFC 5545 §3.1): unfolded, split into name, parameters and value, each with the
// 1-based physical line it starts on — every record and problem needs one. Lines real software writes
// against the RFC are repaired here, and each repair is reported as a warning (spec/pipeline.md, "Parsing
// .ics written by real software"):
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
// `WORD:` at the start of a line is taken as text that lost its fold ("Note: bring food"). Each maps to
// itself: a line's name is then this one string, whose hash and comparisons later cost nothing.
const KNOWN_NAMES = new Map(
  (
    'BEGIN END VERSION PRODID CALSCALE METHOD UID DTSTAMP DTSTART DTEND DURATION DUE COMPLETED SUMMARY ' +
    'DESCRIPTION LOCATION GEO URL STATUS CATEGORIES ORGANIZER ATTENDEE ATTACH IMAGE RRULE RDATE EXDATE ' +
    'EXRULE RECURRENCE-ID SEQUENCE CLASS TRANSP PRIORITY CREATED LAST-MODIFIED COMMENT CONTACT RELATED-TO ' +
    'RESOURCES REQUEST-STATUS TZID TZNAME TZOFFSETFROM TZOFFSETTO TZURL TZUNTIL TZID-ALIAS-OF ACTION TRIGGER ' +
    'REPEAT NAME COLOR REFRESH-INTERVAL SOURCE CONFERENCE PERCENT-COMPLETE FREEBUSY STYLED-DESCRIPTION ' +
    'STRUCTURED-DATA LOCATION-TYPE PARTICIPANT-TYPE CALENDAR-ADDRESS ACKNOWLEDGED PROXIMITY'
  )
    .split(' ')
    .map((name) => [name, name]),
);
const DATE_PROPERTIES = new Set(['DTSTART', 'DTEND', 'EXDATE', 'RDATE', 'RECURRENCE-ID']);
const QUOTED_TZID_VALUE = /^(.*;TZID=)"([^":]+):([^"]*)"$/i;

export interface LinesResult {
  lines: ContentLine[];
  problems: SourceProblem[];
}

/** The content lines of `text`; problems name `file` and the physical line. */
export function contentLines(text: string, file: string): LinesResult {
  const problems: SourceProblem[] = [];
  const lines: ContentLine[] = [];
  eachContentLine(text, file, problems, (l) => lines.push(l));
  return { lines, problems };
}

const LF = 10;
const CR = 13;

/**
 * The content lines of `text` one at a time, handed to `onLine` as each ends, problems pushed to `problems`
 * as they are found: the reader handles each VEVENT as it ends, so the lines of a 20,000-event file are never
 * all in memory at once.
 */
export function eachContentLine(
  text: string,
  file: string,
  problems: SourceProblem[],
  onLine: (line: ContentLine) => void,
): void {
  const reader = new ContentLineReader(file, problems, onLine);
  reader.push(text);
  reader.end();
}

/**
 * Content lines of a text handed over in pieces (a file read as a stream), each piece ending at the end of
 * a physical line: a property folded or broken over the pieces' border is joined as in one text, and line
 * numbers go on. One scan by character codes, no regular expression per line (this is the loop every byte
 * of the file goes through).
 */
export class ContentLineReader {
  readonly #file: string;
  readonly #problems: SourceProblem[];
  readonly #onLine: (line: ContentLine) => void;
  readonly #wanted: ((name: string) => boolean) | undefined;
  #pending = '';
  #pendingName = '';
  #pendingLine = 0;
  /** The property being read is one `wanted` declined: its lines (folds, lost folds) are passed over. */
  #skipping = false;
  #number = 0;
  /** The last piece ended with a CR: an LF first in the next one ends no line of its own. */
  #afterCr = false;

  /**
   * `wanted`: asked, once the line before has gone to `onLine`, for the name of each property as it
   * starts; a property it declines is not cut out, split or handed on (streamIcs's first pass, which needs
   * only a few properties of each VEVENT). The lines that are handed on are the same as without it.
   */
  constructor(
    file: string,
    problems: SourceProblem[],
    onLine: (line: ContentLine) => void,
    wanted?: (name: string) => boolean,
  ) {
    this.#file = file;
    this.#problems = problems;
    this.#onLine = onLine;
    this.#wanted = wanted;
  }

  /** The physical lines of `text`; its last line is taken as ended (a piece ends at a line end). */
  push(text: string): void {
    const file = this.#file;
    const problems = this.#problems;
    const onLine = this.#onLine;
    const wanted = this.#wanted;
    let pending = this.#pending;
    let pendingName = this.#pendingName;
    let pendingLine = this.#pendingLine;
    let skipping = this.#skipping;
    let number = this.#number;
    let position = this.#afterCr && text.charCodeAt(0) === LF ? 1 : 0;
    // Where the next LF and the next lone-or-paired CR are: found once each, not once per line.
    let nextLf = -1;
    let nextCr = -1;
    const length = text.length;
    while (position < length) {
      if (nextLf < position) nextLf = indexOrEnd(text, '\n', position);
      if (nextCr < position) nextCr = indexOrEnd(text, '\r', position);
      const end = Math.min(nextLf, nextCr);
      const start = position;
      position =
        end + (end < length && text.charCodeAt(end) === CR && text.charCodeAt(end + 1) === LF ? 2 : 1);
      number++;
      if (end === start) continue;
      const first = text.charCodeAt(start);
      if (first === 32 || first === 9) {
        // RFC 5545 §3.1: a fold is CRLF followed by one blank, both removed.
        if (pending !== '') pending += text.slice(start + 1, end);
        continue;
      }
      const nameEnd = propertyNameEnd(text, start, end);
      if (nameEnd !== -1 || (pending === '' && !skipping)) {
        const written = nameEnd === -1 ? '' : upper(text.slice(start, nameEnd));
        const known = KNOWN_NAMES.get(written);
        const name = known ?? written;
        if (nameEnd !== -1 && (known !== undefined || name.startsWith('X-'))) {
          if (pending !== '') {
            const parsed = splitLine(pending, pendingName, pendingLine, file, problems);
            if (parsed !== null) onLine(parsed);
          }
          skipping = wanted !== undefined && !wanted(name);
          pending = skipping ? '' : text.slice(start, end);
          pendingName = name;
          pendingLine = number;
          continue;
        }
        if (pending === '' && !skipping) {
          problems.push(
            problem('warning', ICS_PROBLEMS.badLine, `skipped a line that is no property`, {
              file,
              line: number,
            }),
          );
          continue;
        }
      }
      if (skipping) continue;
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
      pending += `\\n${text.slice(start, end)}`;
    }
    this.#afterCr = length > 0 && text.charCodeAt(length - 1) === CR;
    this.#pending = pending;
    this.#pendingName = pendingName;
    this.#pendingLine = pendingLine;
    this.#skipping = skipping;
    this.#number = number;
  }

  /** The last property, once the text has ended. */
  end(): void {
    if (this.#pending === '') return;
    const parsed = splitLine(this.#pending, this.#pendingName, this.#pendingLine, this.#file, this.#problems);
    this.#pending = '';
    if (parsed !== null) this.#onLine(parsed);
  }
}

function indexOrEnd(text: string, char: string, from: number): number {
  const at = text.indexOf(char, from);
  return at === -1 ? text.length : at;
}

/** End of the `[A-Za-z0-9-]+` name at `start` when a `;` or `:` follows it, else -1. */
function propertyNameEnd(text: string, start: number, end: number): number {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45) continue;
    return i > start && (c === 59 || c === 58) ? i : -1;
  }
  return -1;
}

/** Upper case without a new string when it already is (nearly every property name). */
function upper(name: string): string {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 97 && c <= 122) return name.toUpperCase();
  }
  return name;
}

const EIGHT_DIGIT_DATES = /^\s*\d{8}\s*(?:,\s*\d{8}\s*)*$/;

function splitLine(
  text: string,
  name: string,
  line: number,
  file: string,
  problems: SourceProblem[],
): ContentLine | null {
  // The value starts at the first colon outside a quoted parameter value (RFC 5545 §3.2). Without a quote
  // before the first colon that colon is it, and without one at the end no TZID swallowed the value (nearly
  // every line): the rest of the line, a long DESCRIPTION say, is not scanned again.
  let colon = text.indexOf(':', name.length);
  if (
    text.charCodeAt(text.length - 1) === 34 ||
    quoteBefore(text, name.length, colon === -1 ? text.length : colon)
  ) {
    const quoted = text.includes('TZID="') ? QUOTED_TZID_VALUE.exec(text) : null;
    if (quoted !== null) {
      text = `${quoted[1]}${quoted[2]}:${quoted[3]}`;
      problems.push(
        problem('warning', ICS_PROBLEMS.repairedLine, 'moved the value out of a quoted TZID', { file, line }),
      );
    }
    colon = text.indexOf(':', name.length);
    const quote = text.indexOf('"', name.length);
    if (quote !== -1 && quote < colon) colon = colonOutsideQuotes(text);
  }
  if (colon === -1) {
    problems.push(
      problem('warning', ICS_PROBLEMS.badLine, 'skipped a property without a value', { file, line }),
    );
    return null;
  }
  const params = colon === name.length ? [] : text.slice(name.length + 1, colon).split(';');
  let value = text.slice(colon + 1);
  if (name === 'RRULE' || name === 'EXRULE') {
    if (/\s/.test(value)) {
      value = value.replace(/\s+/g, '');
      problems.push(
        problem('warning', ICS_PROBLEMS.repairedLine, `removed blanks inside ${name}`, { file, line }),
      );
    }
  } else if (DATE_PROPERTIES.has(name) && !value.includes('T') && EIGHT_DIGIT_DATES.test(value)) {
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

/** Whether a `"` is in text[from, to). */
function quoteBefore(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 34) return true;
  return false;
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
  if (line.params.length === 0) return undefined;
  const upperName = name.toUpperCase();
  for (const p of line.params) {
    if (p.length > upperName.length && p.charCodeAt(upperName.length) === 61 && startsUpper(p, upperName)) {
      const value = p.slice(upperName.length + 1);
      return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
    }
  }
  return undefined;
}

/** Whether `text` starts with `upperName`, ignoring the case of ASCII letters in `text`. */
function startsUpper(text: string, upperName: string): boolean {
  for (let i = 0; i < upperName.length; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 97 && c <= 122 ? c - 32 : c) !== upperName.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * RFC 5545 §3.3.11 TEXT unescaping: `\n`, `\,`, `\;`, `\\`; any other backslash is kept. A loop over the
 * backslashes, not a replace with a callback: every text value of the file goes through here.
 */
export function unescapeText(value: string): string {
  let at = value.indexOf('\\');
  if (at === -1) return value;
  let out = '';
  let from = 0;
  while (at !== -1 && at + 1 < value.length) {
    const c = value.charCodeAt(at + 1);
    // n N , ; \
    if (c === 110 || c === 78 || c === 44 || c === 59 || c === 92) {
      out += value.slice(from, at) + (c === 110 || c === 78 ? '\n' : value[at + 1]);
      from = at + 2;
      at = value.indexOf('\\', from);
    } else at = value.indexOf('\\', at + 1);
  }
  return out + value.slice(from);
}
