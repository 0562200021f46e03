// readIcs: .ics bytes → EventRecords, one per single event and per occurrence of a series in the window
// (spec/pipeline.md, "Identity", "Time", "Parsing .ics written by real software"). Our own reader (issue 17:
// node-ical's parser per VEVENT was the largest cost): decode.ts (BOM, folds inside a UTF-8 character),
// lines.ts (content lines, line numbers, repairs), components.ts (VEVENT blocks, truncation), vevent.ts (one
// VEVENT), fields.ts (its properties), records.ts (series, overrides, keys), recurrence.ts (expansion),
// rule.ts (RRULEs, on rrule-temporal). Here: the zones and the floating zone, and one pass over the text,
// every record returned at once (tests, bench:parse, URL sources); a run reads a file with stream.ts, which
// gives the same records a batch at a time from the same pieces.

import { normalizeTimezone } from '../../model/timezone.ts';
import type { SourceProblem, SourceResult, Window } from '../record.ts';
import { type CalendarParts, ComponentReader } from './components.ts';
import { decodeIcs } from './decode.ts';
import { ICS_PROBLEMS, problem } from './errors.ts';
import { eachContentLine } from './lines.ts';
import { toRecords } from './records.ts';
import { type ParsedEvent, readVEvent } from './vevent.ts';
import { ZoneResolver } from './zones.ts';

export interface ReadIcsOptions {
  /** Name used in origins and problems (path or URL). */
  file: string;
  /** Occurrences of series overlapping [from, to) are expanded; single events are always kept. */
  window: Window;
  /** Zone for floating times when the file names none (no X-WR-TIMEZONE, not exactly one VTIMEZONE). */
  defaultZone?: string;
  /**
   * Called after each VEVENT is read, with the VEVENTs read so far and the file's total: the read is
   * synchronous, so this is how a terminal's progress bar moves while a large file is parsed.
   */
  onProgress?: (done: number, total: number) => void;
}

export function readIcs(bytes: Uint8Array, options: ReadIcsOptions): SourceResult {
  const { file, window } = options;
  const { text } = decodeIcs(bytes);
  const problems: SourceProblem[] = [];
  const events: ParsedEvent[] = [];
  let ctx: Context | null = null;
  let parts: CalendarParts;
  const read = progressOf(options.onProgress === undefined ? 0 : countEvents(text), options.onProgress);
  if (!zonesAfterFirstEvent(text)) {
    // One pass, the common case (every writer we know puts VTIMEZONEs and X-WR-TIMEZONE first): each VEVENT
    // is read as soon as it ends and its lines dropped, which keeps a large file's memory low.
    const reader = new ComponentReader(file, (block) => {
      ctx ??= context(reader.parts, options, problems);
      const event = readVEvent(block, ctx);
      if (event !== null) events.push(event);
      read();
    });
    eachContentLine(text, file, problems, (l) => reader.line(l));
    parts = reader.end();
    ctx ??= context(parts, options, problems);
  } else {
    // A zone defined after the events that use it: first the zones, then the events.
    const first = new ComponentReader(file, () => {});
    eachContentLine(text, file, [], (l) => first.line(l));
    ctx = context(first.end(), options, problems);
    const zonesFirst = ctx;
    const reader = new ComponentReader(file, (block) => {
      const event = readVEvent(block, zonesFirst);
      if (event !== null) events.push(event);
      read();
    });
    eachContentLine(text, file, problems, (l) => reader.line(l));
    parts = reader.end();
  }
  problems.push(...parts.problems);
  const records = toRecords(events, ctx, window);
  return { records, problems, calendar: ctx.calendar };
}

export interface Context {
  file: string;
  problems: SourceProblem[];
  zones: ZoneResolver;
  floatingZone: string | null;
  calendar: SourceResult['calendar'];
}

const FIRST_EVENT = /^BEGIN:VEVENT/im;
const EVERY_EVENT = /^BEGIN:VEVENT/gim;

/** The VEVENTs of `text` (one regex pass, <1% of the read): a progress bar's total. */
function countEvents(text: string): number {
  return text.match(EVERY_EVENT)?.length ?? 0;
}

/**
 * What to call after each VEVENT: counts it against the file's `total` VEVENTs and reports every 1/1000 of
 * them — a bar has no more to show, and a call per VEVENT cost 6% of the read.
 */
export function progressOf(total: number, onProgress: ReadIcsOptions['onProgress']): () => void {
  if (onProgress === undefined) return () => {};
  const step = Math.max(1, Math.ceil(total / 1000));
  let done = 0;
  return () => {
    done++;
    if (done % step === 0 || done === total) onProgress(Math.min(done, total), total);
  };
}
const ZONE = /^(?:BEGIN:VTIMEZONE|X-WR-TIMEZONE)/gim;

/** Whether a VTIMEZONE or X-WR-TIMEZONE comes after the first VEVENT (then one pass cannot do). */
function zonesAfterFirstEvent(text: string): boolean {
  const event = FIRST_EVENT.exec(text);
  if (event === null) return false;
  ZONE.lastIndex = event.index;
  return ZONE.exec(text) !== null;
}

/** The zones of the file and the zone of floating times: X-WR-TIMEZONE, its only VTIMEZONE, the default. */
export function context(
  parts: Pick<CalendarParts, 'calendar' | 'timezones'>,
  options: ReadIcsOptions,
  problems: SourceProblem[],
): Context {
  const file = options.file;
  const zones = new ZoneResolver(parts.timezones);
  const calendar = { ...parts.calendar };
  let floatingZone: string | null = null;
  if (calendar.timezone !== undefined) {
    floatingZone = zones.resolve(calendar.timezone);
    if (floatingZone === null) {
      problems.push(
        problem('warning', ICS_PROBLEMS.unknownZone, `unknown X-WR-TIMEZONE "${calendar.timezone}"`, {
          file,
        }),
      );
    } else calendar.timezone = floatingZone;
  }
  if (floatingZone === null && parts.timezones.length === 1)
    floatingZone = zones.resolve(parts.timezones[0].tzid);
  if (floatingZone === null && options.defaultZone !== undefined) {
    floatingZone = normalizeTimezone(options.defaultZone);
    if (floatingZone === null)
      throw new RangeError(`Unknown default zone: ${JSON.stringify(options.defaultZone)}`);
  }
  return { file, problems, zones, floatingZone, calendar };
}
