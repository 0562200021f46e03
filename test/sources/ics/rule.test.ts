// Property test: the simple daily/weekly rules rule.ts computes itself give the occurrences rrule-temporal
// gives for the same RRULE and DTSTART — in DST zones, at any hour (gaps and overlaps included), floating,
// UTC and all-day, with INTERVAL, COUNT or UNTIL, over random windows — and one more where rrule-temporal
// drops an occurrence whose wall time falls in a DST gap: RFC 5545 §3.3.10 keeps it, moved forward as an
// explicit DATE-TIME would be (§3.3.5), and so does ical.js.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wireToMs } from '../../../src/model/civil-time.ts';
import { wallToInstant, zoneInfo } from '../../../src/model/timezone.ts';
import type { RuleMode } from '../../../src/sources/ics/recurrence.ts';
import { buildRule } from '../../../src/sources/ics/rule.ts';
import { atInstant, type Moment } from '../../../src/sources/ics/times.ts';

const DAY = 86_400_000;
const compact = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '');

const ruleCase = fc.record({
  kind: fc.constantFrom(
    'Europe/Berlin',
    'America/New_York',
    'Australia/Lord_Howe',
    'UTC',
    'floating',
    'date',
  ),
  // Days around the 2027 DST changes in March/April and October/November, every quarter hour.
  day: fc.integer({ min: Date.UTC(2027, 2, 1) / DAY, max: Date.UTC(2027, 10, 15) / DAY }),
  minute: fc.integer({ min: 0, max: 95 }).map((q) => q * 15),
  freq: fc.constantFrom('DAILY', 'WEEKLY'),
  interval: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
  end: fc.oneof(
    fc.constant({}),
    fc.record({ count: fc.integer({ min: 1, max: 40 }) }),
    fc.record({
      untilDays: fc.integer({ min: 0, max: 200 }),
      untilMinute: fc.integer({ min: 0, max: 1439 }),
    }),
  ),
  windowFrom: fc.integer({ min: -20, max: 200 }),
  windowDays: fc.integer({ min: 0, max: 120 }),
  inclusive: fc.boolean(),
});

function startOf(c: { kind: string; day: number; minute: number }): { start: Moment; mode: RuleMode } {
  const wallMs = c.day * DAY + c.minute * 60_000;
  const local = new Date(wallMs).toISOString().slice(0, 19).replace('T', ' ');
  if (c.kind === 'date') {
    const date = local.slice(0, 10);
    return { start: { value: { kind: 'date', date }, ms: wireToMs(`${date} 00:00:00`) }, mode: 'date' };
  }
  if (c.kind === 'floating')
    return { start: { value: { kind: 'floating', local }, ms: wallMs }, mode: 'wall' };
  if (c.kind === 'UTC')
    return { start: { value: { kind: 'zoned', local, zone: 'UTC' }, ms: wallMs }, mode: 'wall' };
  const ms = wallToInstant(wallMs, zoneInfo(c.kind));
  return { start: { value: { kind: 'zoned', local, zone: c.kind }, ms }, mode: 'zone' };
}

/**
 * `theirs` without the occurrences rrule-temporal adds past the end of a COUNT rule: it does not count the
 * occurrences it drops in a DST gap, so it ends as many occurrences later (a daily 02:00 in Berlin with
 * COUNT=24 from 5 March ends on 29 March instead of 28 March at 03:00, as RFC 5545 and ical.js count).
 */
function beyondCount(rrule: string, start: Moment, mode: RuleMode, theirs: Date[]): Date[] {
  if (!rrule.includes('COUNT=')) return theirs;
  const all = [new Date(start.ms - 2 * DAY), new Date(start.ms + 1_500 * DAY), true] as const;
  const ours = buildRule(rrule, start, mode).between(...all);
  const full = buildRule(rrule, start, mode, { simple: false }).between(...all);
  const fullIsos = new Set(full.map((d) => d.toISOString()));
  const dropped = ours.filter((d) => !fullIsos.has(d.toISOString())).length;
  const last = ours.at(-1)?.getTime() ?? -Infinity;
  const past = full.filter((d) => d.getTime() > last);
  expect(past.length, `${rrule}: occurrences past our end`).toBeLessThanOrEqual(dropped);
  return theirs.filter((d) => d.getTime() <= last);
}

describe('simple RRULEs computed without rrule-temporal', () => {
  it('give the occurrences rrule-temporal gives', () => {
    fc.assert(
      fc.property(ruleCase, (c) => {
        const { start, mode } = startOf(c);
        const parts = [`FREQ=${c.freq}`];
        if (c.interval !== undefined) parts.push(`INTERVAL=${c.interval}`);
        if ('count' in c.end) parts.push(`COUNT=${c.end.count}`);
        if ('untilDays' in c.end) {
          const until = c.day * DAY + c.end.untilDays * DAY + c.end.untilMinute * 60_000;
          parts.push(`UNTIL=${c.kind === 'date' ? compact(until).slice(0, 8) : `${compact(until)}Z`}`);
        }
        const rrule = parts.join(';');
        const from = new Date(c.day * DAY + c.windowFrom * DAY);
        const to = new Date(from.getTime() + c.windowDays * DAY + 7 * 3_600_000);
        const ours = buildRule(rrule, start, mode).between(from, to, c.inclusive);
        const theirs = beyondCount(
          rrule,
          start,
          mode,
          buildRule(rrule, start, mode, { simple: false }).between(from, to, c.inclusive),
        );
        const theirIsos = new Set(theirs.map((d) => d.toISOString()));
        const kept = ours.filter((d) => theirIsos.has(d.toISOString()));
        expect(
          kept.map((d) => d.toISOString()),
          `${rrule} from ${JSON.stringify(start.value)}`,
        ).toEqual(theirs.map((d) => d.toISOString()));
        // Only occurrences rrule-temporal drops in a gap: their wall clock is not DTSTART's.
        for (const d of ours.filter((d) => !theirIsos.has(d.toISOString()))) {
          if (start.value.kind !== 'zoned') throw new Error(`extra ${d.toISOString()} for ${rrule}`);
          const wall = atInstant(start.value, d.getTime()).value;
          expect(wall.kind === 'zoned' && wall.local.slice(11)).not.toBe(start.value.local.slice(11));
        }
      }),
      {
        numRuns: 400,
        // A daily 02:00 in Berlin over the spring-forward night, which rrule-temporal drops.
        examples: [
          [
            {
              ...{ kind: 'Europe/Berlin', day: 20878, minute: 120, freq: 'DAILY', interval: undefined },
              ...{ end: {}, windowFrom: 0, windowDays: 27, inclusive: false },
            },
          ],
          // The same with COUNT=24 from 5 March: rrule-temporal ends a day later (`beyondCount`).
          [
            {
              ...{ kind: 'Europe/Berlin', day: 20882, minute: 120, freq: 'DAILY', interval: undefined },
              ...{ end: { count: 24 }, windowFrom: 0, windowDays: 24, inclusive: false },
            },
          ],
        ],
      },
    );
  });

  it('keep a daily 02:30 in the spring-forward gap, at 03:30 (RFC 5545 §3.3.10)', () => {
    const { start, mode } = startOf({ kind: 'Europe/Berlin', day: Date.UTC(2027, 2, 26) / DAY, minute: 150 });
    const rule = buildRule('FREQ=DAILY;COUNT=4', start, mode);
    const dates = rule.between(new Date('2027-03-01T00:00:00Z'), new Date('2027-04-01T00:00:00Z'), true);
    expect(dates.map((d) => d.toISOString())).toEqual([
      '2027-03-26T01:30:00.000Z',
      '2027-03-27T01:30:00.000Z',
      '2027-03-28T01:30:00.000Z', // 03:30 CEST: 02:30 does not exist that night
      '2027-03-29T00:30:00.000Z',
    ]);
  });

  it('include an occurrence that starts exactly at an inclusive bound', () => {
    const { start, mode } = startOf({
      kind: 'Europe/Berlin',
      day: Date.UTC(2027, 2, 1) / DAY,
      minute: 19 * 60,
    });
    const rule = buildRule('FREQ=WEEKLY;COUNT=3', start, mode);
    const second = new Date(start.ms + 7 * DAY);
    expect(rule.between(second, second, true)).toEqual([second]);
    expect(rule.between(second, second, false)).toEqual([]);
  });
});
