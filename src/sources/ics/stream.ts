// streamIcs: an .ics file read as a stream → EventRecords in batches, as the file is read (issue 17: memory
// that does not grow with the file). The same pieces as readIcs (read.ts), in two passes over the file:
// 1. content lines and components only: the calendar's parts (zones, X-WR-TIMEZONE, wherever they are in
//    the file), the VEVENTs to read (the progress bar's total) and how many VEVENTs each key has;
// 2. each VEVENT read as it ends. A key with one VEVENT (nearly every one) becomes its records at once; the
//    VEVENTs of a key with more — a series and its RECURRENCE-ID overrides, before or after it anywhere in
//    the file, or duplicates — are held until the last of them is read, then paired as readIcs pairs them
//    (records.ts toRecords, per key). So what is held is a batch, and the series still waiting for a VEVENT.
// Records of a held key come when its last VEVENT is read, so the order differs from readIcs's (file order
// of masters); the records and their keys are the same, and no key comes twice.

import type { EventRecord, SourceProblem, SourceResult } from '../record.ts';
import { ComponentReader } from './components.ts';
import { IcsDecoder } from './decode.ts';
import { ContentLineReader } from './lines.ts';
import { context, progressOf, type ReadIcsOptions } from './read.ts';
import { toRecords } from './records.ts';
import { KEY_PROPERTIES, keyOf, type ParsedEvent, readVEvent } from './vevent.ts';

export interface IcsStream {
  /** The calendar's X-WR-* properties (X-WR-TIMEZONE resolved), known before the first record. */
  calendar: SourceResult['calendar'];
  /** Problems found so far; all of them once `records` has ended. */
  problems: SourceProblem[];
  /** VEVENTs in the file. */
  total: number;
  /** Whether the file has a BEGIN:VCALENDAR, and its encoding (read-source refuses what is no calendar). */
  sawCalendar: boolean;
  encoding: string | undefined;
  /** The records, `size` at a time (the last batch smaller), as the second pass reads the file. Once. */
  records(size: number): AsyncGenerator<EventRecord[]>;
  /** VEVENTs not read yet: a progress bar's guess at the records still to come. */
  left(): number;
}

const CALENDAR = /BEGIN:VCALENDAR/i;
/** The lines of a VEVENT the first pass reads: its components' borders and what keyOf reads. */
const KEY_LINES = new Set<string>(['BEGIN', 'END', ...KEY_PROPERTIES]);

/** `read` opens the file from its start: called once per pass. */
export async function streamIcs(
  read: () => AsyncIterable<Uint8Array>,
  options: ReadIcsOptions,
): Promise<IcsStream> {
  const { file, window } = options;
  // Pass 1: parts and keys. Keys are counted by a 53-bit hash, so the counts hold no string of the file;
  // two keys sharing a hash only hold the first one's VEVENTs a little longer.
  const counts = new Map<number, number>();
  let total = 0;
  let sawCalendar = false;
  const components = new ComponentReader(file, (block) => {
    total++;
    const hash = hashOf(keyOf(block.props));
    counts.set(hash, (counts.get(hash) ?? 0) + 1);
  });
  // Inside a VEVENT only the lines its key is made of (and BEGIN/END) are split and handed on.
  const wanted = (name: string) => !components.inEvent || KEY_LINES.has(name);
  const decoder = await eachPiece(
    read,
    new ContentLineReader(file, [], (l) => components.line(l), wanted),
    (text) => {
      if (!sawCalendar && CALENDAR.test(text)) sawCalendar = true;
    },
  );
  const parts = components.end();
  const multi = new Map<number, number>();
  for (const [hash, n] of counts) if (n > 1) multi.set(hash, n);
  counts.clear();

  const problems: SourceProblem[] = [];
  const ctx = context(parts, options, problems);
  let done = 0;
  let started = false;

  async function* records(size: number): AsyncGenerator<EventRecord[]> {
    if (started) throw new Error('streamIcs: the records can be read once');
    started = true;
    const progress = progressOf(total, options.onProgress);
    const out: EventRecord[] = [];
    /** VEVENTs of keys with more than one, by key hash, until the last of them is read. */
    const held = new Map<number, ParsedEvent[]>();
    const reader = new ComponentReader(file, (block) => {
      done++;
      progress();
      const event = readVEvent(block, ctx);
      // A read VEVENT has the key keyOf gives its lines: they are searched again only for one it dropped.
      const hash = multi.size === 0 ? 0 : hashOf(event?.key ?? keyOf(block.props));
      const left = multi.get(hash);
      if (left === undefined) {
        if (event !== null) for (const r of toRecords([event], ctx, window)) out.push(r);
        return;
      }
      let group = held.get(hash);
      if (group === undefined) {
        group = [];
        held.set(hash, group);
      }
      if (event !== null) group.push(event);
      if (left > 1) multi.set(hash, left - 1);
      else {
        multi.delete(hash);
        held.delete(hash);
        for (const r of toRecords(group, ctx, window)) out.push(r);
      }
    });
    const lines = new ContentLineReader(file, problems, (l) => reader.line(l));
    const decoder = new IcsDecoder();
    const take = (texts: string[]) => {
      for (const text of texts) if (text !== '') lines.push(text);
    };
    for await (const chunk of read()) {
      take(decoder.push(chunk));
      while (out.length >= size) yield out.splice(0, size);
    }
    take(decoder.end());
    lines.end();
    problems.push(...reader.end().problems);
    // Keys whose VEVENTs did not all come (the file changed between the passes): paired with what came.
    for (const group of held.values()) for (const r of toRecords(group, ctx, window)) out.push(r);
    held.clear();
    while (out.length > size) yield out.splice(0, size);
    if (out.length > 0) yield out;
  }

  return {
    calendar: ctx.calendar,
    problems,
    total,
    sawCalendar,
    encoding: decoder.encoding,
    records,
    left: () => total - done,
  };
}

/** Pass 1: every piece of text through `lines` (and `look`), the decoder returned for its encoding. */
async function eachPiece(
  read: () => AsyncIterable<Uint8Array>,
  lines: ContentLineReader,
  look: (text: string) => void,
): Promise<IcsDecoder> {
  const decoder = new IcsDecoder();
  const take = (texts: string[]) => {
    for (const text of texts) {
      if (text === '') continue;
      look(text);
      lines.push(text);
    }
  };
  for await (const chunk of read()) take(decoder.push(chunk));
  take(decoder.end());
  lines.end();
  return decoder;
}

/** Two FNV-1a hashes of `key` (32 and 21 bits) as one exact integer below 2^53. */
function hashOf(key: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x050c5d1f);
  }
  return (a >>> 0) * 0x200000 + (b >>> 11);
}
