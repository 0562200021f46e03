// streamIcs (issue 17): an .ics file read as a stream gives its first records before the file has been read
// to its end, and in the end the same records, problems and calendar as readIcs — with overrides before or
// after their series anywhere in the file, duplicates, zones after the events, and chunks cut anywhere.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateIcs } from '../../../bench/generate-ics.ts';
import { readIcs } from '../../../src/sources/ics/index.ts';
import { streamIcs } from '../../../src/sources/ics/stream.ts';
import type { EventRecord, SourceProblem } from '../../../src/sources/record.ts';
import { calendar, vevent, YEAR_2027 } from './helpers.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/ics');

/** `bytes` as a file read in chunks of `size`; `delivered` counts the chunks handed out by the last read. */
function chunked(bytes: Uint8Array, size: number) {
  const file = {
    chunks: Math.ceil(bytes.length / size),
    delivered: 0,
    async *read(): AsyncGenerator<Uint8Array> {
      file.delivered = 0;
      for (let at = 0; at < bytes.length; at += size) {
        file.delivered++;
        yield bytes.subarray(at, at + size);
      }
    },
  };
  return file;
}

async function streamed(bytes: Uint8Array, chunk: number, batch: number) {
  const file = chunked(bytes, chunk);
  const stream = await streamIcs(() => file.read(), { file: 'test.ics', window: YEAR_2027 });
  const records: EventRecord[] = [];
  for await (const b of stream.records(batch)) {
    expect(b.length).toBeLessThanOrEqual(batch);
    records.push(...b);
  }
  return { records, problems: stream.problems, calendar: stream.calendar };
}

const byKey = (records: readonly EventRecord[]) =>
  [...records].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
const asSet = (problems: readonly SourceProblem[]) => problems.map((p) => JSON.stringify(p)).sort();

async function expectSameAsReadIcs(bytes: Uint8Array, chunk: number, batch: number) {
  const whole = readIcs(bytes, { file: 'test.ics', window: YEAR_2027 });
  const read = await streamed(bytes, chunk, batch);
  expect(byKey(read.records)).toEqual(byKey(whole.records));
  expect(new Set(read.records.map((r) => r.key)).size).toBe(read.records.length);
  expect(asSet(read.problems)).toEqual(asSet(whole.problems));
  expect(read.calendar).toEqual(whole.calendar);
}

describe('an .ics file read as a stream', () => {
  it('gives its first batch of records while most of the file is still unread', async () => {
    const bytes = new TextEncoder().encode(generateIcs({ events: 3_000, start: YEAR_2027.from }));
    const file = chunked(bytes, 4096);
    const stream = await streamIcs(() => file.read(), { file: 'big.ics', window: YEAR_2027 });
    expect(stream.total).toBe(3_000);
    let first: number | undefined;
    let count = 0;
    for await (const batch of stream.records(500)) {
      first ??= file.delivered;
      count += batch.length;
    }
    expect(first).toBeLessThan(file.chunks / 4);
    expect(count).toBe(readIcs(bytes, { file: 'big.ics', window: YEAR_2027 }).records.length);
  });

  it('pairs overrides with their series before or after it anywhere in the file, and keeps the higher SEQUENCE of duplicates, as readIcs', async () => {
    const text = calendar(
      ...vevent(
        'UID:series',
        'RECURRENCE-ID;TZID=Europe/Berlin:20270315T190000',
        'DTSTART;TZID=Europe/Berlin:20270315T200000',
        'DTEND;TZID=Europe/Berlin:20270315T210000',
        'SUMMARY:Moved, before its series',
      ),
      ...vevent('UID:dup', 'SEQUENCE:2', 'DTSTART:20270401T100000Z', 'SUMMARY:Kept (SEQUENCE 2)'),
      ...vevent('UID:single', 'DTSTART:20270402T100000Z', 'SUMMARY:Alone'),
      ...vevent('DTSTART:20270403T100000Z', 'SUMMARY:No UID'),
      ...vevent(
        'UID:series',
        'DTSTART;TZID=Europe/Berlin:20270301T190000',
        'DTEND;TZID=Europe/Berlin:20270301T210000',
        'RRULE:FREQ=WEEKLY;COUNT=8',
        'EXDATE;TZID=Europe/Berlin:20270308T190000',
        'SUMMARY:Weekly',
      ),
      ...vevent('UID:dup', 'SEQUENCE:1', 'DTSTART:20270401T110000Z', 'SUMMARY:Dropped (SEQUENCE 1)'),
      ...vevent('DTSTART:20270403T100000Z', 'SUMMARY:No UID'),
      ...vevent(
        'UID:series',
        'RECURRENCE-ID;RANGE=THISANDFUTURE;TZID=Europe/Berlin:20270405T190000',
        'DTSTART;TZID=Europe/Berlin:20270405T180000',
        'DTEND;TZID=Europe/Berlin:20270405T200000',
        'SUMMARY:Earlier from April, after its series',
      ),
      ...vevent('UID:orphan', 'RECURRENCE-ID:20270501T100000Z', 'DTSTART:20270501T120000Z', 'SUMMARY:Orphan'),
      'BEGIN:VTIMEZONE',
      'TZID:Europe/Berlin',
      'BEGIN:STANDARD',
      'DTSTART:19701025T030000',
      'TZOFFSETFROM:+0200',
      'TZOFFSETTO:+0100',
      'END:STANDARD',
      'END:VTIMEZONE',
    );
    const bytes = new TextEncoder().encode(text);
    const whole = readIcs(bytes, { file: 'test.ics', window: YEAR_2027 });
    expect(whole.records.find((r) => r.key === 'dup')?.title).toBe('Kept (SEQUENCE 2)');
    expect(whole.records.filter((r) => r.key.startsWith('series@'))).toHaveLength(7);
    for (const chunk of [1, 7, 64, 1 << 16]) await expectSameAsReadIcs(bytes, chunk, 2);
  });

  it('keys UID-less VEVENTs as readIcs does though its first pass splits only their key lines, with folds, lost folds and alarms around them', async () => {
    // Each event twice: a key counted differently by the first pass would come out twice.
    const noUid = (summary: string) =>
      vevent(
        'DESCRIPTION:A long description that the writer folded',
        ' and folded again',
        'Note: a raw newline the writer did not fold',
        'DTSTART:20270403T100000Z',
        'X-CUSTOM;X-PARAM="a:b":value',
        `SUMMARY:${summary}`,
        ' (folded on)',
        'continued without its blank',
        'BEGIN:VALARM',
        'ACTION:DISPLAY',
        'SUMMARY:The alarm, not the event',
        'DESCRIPTION:Reminder',
        'TRIGGER:-PT15M',
        'END:VALARM',
        'LOCATION:Main',
        ' Hall',
        'COMMENT:after the key lines',
      );
    const text = calendar(
      'X-WR-CALNAME:Folded',
      ' name',
      ...noUid('One'),
      ...vevent('UID:a', 'DTSTART:20270404T100000Z', 'SUMMARY:With UID'),
      ...noUid('One'),
      ...noUid('Two'),
      ...vevent('DTSTART:20270405T100000Z', 'SUMMARY:Plain', 'DESCRIPTION:x'),
      ...noUid('Two'),
      ...vevent('DTSTART:20270405T100000Z', 'SUMMARY:Plain', 'DESCRIPTION:y'),
    );
    const bytes = new TextEncoder().encode(text);
    const whole = readIcs(bytes, { file: 'test.ics', window: YEAR_2027 });
    expect(whole.records.filter((r) => r.key.startsWith('nouid-'))).toHaveLength(3);
    expect(whole.records.map((r) => r.title)).toContain('One(folded on)\ncontinued without its blank');
    for (const chunk of [1, 5, 64, 1 << 16]) await expectSameAsReadIcs(bytes, chunk, 1);
  });

  it('reads characters above U+00FF (decoded apart from the lines around them) as readIcs does, also split by folds', async () => {
    const encoder = new TextEncoder();
    // A fold inside a 3-byte and a 4-byte character, as writers that fold by octets make them.
    const splitFold = (text: string, at: number) => {
      const bytes = encoder.encode(text);
      return [bytes.subarray(0, at), encoder.encode('\r\n '), bytes.subarray(at)];
    };
    const text = calendar(
      ...vevent('UID:wide', 'DTSTART:20270403T100000Z', 'SUMMARY:It’s “quoted” — 🎷 night', 'LOCATION:Café'),
      ...vevent(
        'UID:folded',
        'DTSTART:20270404T100000Z',
        'SUMMARY:@@SPLIT@@',
        'DESCRIPTION:first line ’',
        ' folded ✓',
        'raw line without its blank ’',
        'LOCATION:Plain',
      ),
      ...vevent('UID:latin', 'DTSTART:20270405T100000Z', 'SUMMARY:Straße über', 'LOCATION:Zürich'),
    );
    const [before, after] = text.split('@@SPLIT@@');
    const parts = [
      encoder.encode(before),
      ...splitFold('Jazz ’n 🎷', 6),
      ...splitFold(' more 🎷 jazz', 7),
      encoder.encode(after),
    ];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => {
      bytes.set(p, at);
      return at + p.length;
    }, 0);
    const whole = readIcs(bytes, { file: 'test.ics', window: YEAR_2027 });
    expect(whole.records.map((r) => r.title)).toEqual([
      'It’s “quoted” — 🎷 night',
      'Jazz ’n 🎷 more 🎷 jazz',
      'Straße über',
    ]);
    for (const chunk of [1, 3, 17, 100, 1 << 16]) await expectSameAsReadIcs(bytes, chunk, 2);
    const generated = encoder.encode(generateIcs({ events: 300, start: YEAR_2027.from }));
    for (const chunk of [4096, 1 << 16]) await expectSameAsReadIcs(generated, chunk, 50);
  });

  it('reads every test fixture as readIcs does, in chunks cut anywhere', async () => {
    const files = readdirSync(FIXTURES).filter((f) => f.endsWith('.ics'));
    expect(files.length).toBeGreaterThan(20);
    for (const f of files) await expectSameAsReadIcs(readFileSync(join(FIXTURES, f)), 13, 3);
  });

  it('reports VEVENTs read against the total counted up front', async () => {
    const bytes = new TextEncoder().encode(generateIcs({ events: 200, start: YEAR_2027.from }));
    const calls: [number, number][] = [];
    const file = chunked(bytes, 1000);
    const stream = await streamIcs(() => file.read(), {
      file: 'p.ics',
      window: YEAR_2027,
      onProgress: (done, total) => calls.push([done, total]),
    });
    for await (const _ of stream.records(50));
    expect(calls.length).toBeGreaterThan(10);
    expect(calls.every(([, total]) => total === 200)).toBe(true);
    expect(calls.at(-1)).toEqual([200, 200]);
  });
});
