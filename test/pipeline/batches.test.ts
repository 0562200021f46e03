/**
 * A run in batches (pipeline/stream.ts) decides what the whole plan decides: the same writes, the same
 * state, the same report — with venues and terms first named in a later batch, a UID repeated across
 * batches, a series, and deletions of events from several batches (held back by the guard when too many).
 * Each run goes through a real local target on a real SQLite file, with batches of 3 records against one
 * batch of everything, and the plan a dry run (the whole plan) prints.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { Mapper, mapRecords } from '../../src/pipeline/map.ts';
import { type RunSpec, runPipeline } from '../../src/pipeline/run.ts';
import type { EventRecord } from '../../src/sources/record.ts';
import { SyncState } from '../../src/state/sync-state.ts';

const NOW = new Date('2027-01-01T00:00:00Z');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calsync-batches-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface Single {
  uid: string;
  title: string;
  venue: string;
  category: string;
  /** Day of February 2027. */
  day: number;
  cancelled?: boolean;
}

const pad = (n: number) => String(n).padStart(2, '0');

function calendar(singles: readonly Single[], seriesTitle = 'Weekly choir'): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync test//EN'];
  singles.forEach((e, i) => {
    const day = `202702${pad(e.day)}`;
    lines.push(
      'BEGIN:VEVENT',
      `UID:${e.uid}`,
      'DTSTAMP:20270101T000000Z',
      `DTSTART:${day}T180000Z`,
      `DTEND:${day}T200000Z`,
      `SUMMARY:${e.title}`,
      `LOCATION:${e.venue}`,
      `CATEGORIES:${e.category}`,
      ...(e.cancelled ? ['STATUS:CANCELLED'] : []),
      'END:VEVENT',
    );
    if (i === 5) {
      lines.push(
        'BEGIN:VEVENT',
        'UID:series-1',
        'DTSTAMP:20270101T000000Z',
        'DTSTART:20270301T190000Z',
        'DTEND:20270301T210000Z',
        'RRULE:FREQ=WEEKLY;COUNT=4',
        `SUMMARY:${seriesTitle}`,
        'LOCATION:Church Hall',
        'END:VEVENT',
      );
    }
  });
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

/** 20 events; "Late Hall" and the category "Late" first appear in the last batch; UID dup-1 twice. */
function firstSource(): Single[] {
  const singles: Single[] = [];
  for (let i = 1; i <= 20; i++) {
    singles.push({
      uid: `e${i}`,
      title: `Event ${i}`,
      venue: i >= 18 ? 'Late Hall' : ['Town Hall', 'Library', 'Park'][i % 3],
      category: i >= 19 ? 'Late' : ['Music', 'Talks'][i % 2],
      day: i,
    });
    if (i === 2)
      singles.push({ uid: 'dup-1', title: 'Dup, first', venue: 'Park', category: 'Music', day: 22 });
  }
  singles.push({ uid: 'dup-1', title: 'Dup, later', venue: 'Library', category: 'Talks', day: 23 });
  return singles;
}

function spec(name: string, file: string, maxDeleteRatio = 1): RunSpec {
  return {
    name,
    source: { type: 'ics', path: file },
    mapping: {
      timezone: 'UTC',
      status: 'publish',
      categories: [],
      tags: [],
      featured: false,
      show_map: true,
      show_map_link: true,
    },
    window: { pastDays: 30, futureDays: 365 },
    policies: { update: 'overwrite', delete: 'delete', maxDeleteRatio },
    stateFile: join(dir, `${name}.state.db`),
    targetLabel: 'local',
  };
}

async function run(s: RunSpec, store: string, batch: number, dryRun = false) {
  return runPipeline(s, {
    openTarget: () => openLocalTarget({ dataFile: store }),
    now: NOW,
    batch,
    dryRun,
  });
}

/**
 * The state as two pipelines can compare it: remote ids differ with the order of the writes, and an event
 * slug's suffix is a hash of the pipeline's name.
 */
function stateOf(s: RunSpec) {
  const state = new SyncState(s.stateFile);
  try {
    return state.items(s.name).map(({ kind, key, slug, hash, written }) => ({
      kind,
      key,
      slug: slug.replace(/-[0-9a-f]{10}$/, ''),
      hash,
      written,
    }));
  } finally {
    state.close();
  }
}

async function titlesIn(store: string): Promise<string[]> {
  const target = await openLocalTarget({ dataFile: store });
  try {
    const titles: string[] = [];
    for await (const e of target.list('event')) titles.push(String(e.body.title));
    return titles.sort();
  } finally {
    await target.close();
  }
}

/** Two pipelines over the same file, one in batches of 3, one in a single batch; their stores apart. */
async function pair(name: string, maxDeleteRatio = 1) {
  const file = join(dir, `${name}.ics`);
  const small = spec(`${name}-small`, file, maxDeleteRatio);
  const whole = spec(`${name}-whole`, file, maxDeleteRatio);
  const stores = { small: join(dir, `${name}-small.db`), whole: join(dir, `${name}-whole.db`) };
  const both = async () => {
    const a = await run(small, stores.small, 3);
    const b = await run(whole, stores.whole, 1_000_000);
    return { a, b };
  };
  return { file, small, whole, stores, both };
}

describe('a run in batches', () => {
  it('writes what one batch writes, with venues and terms first named in a later batch and a UID repeated across batches', async () => {
    const p = await pair('first');
    await writeFile(p.file, calendar(firstSource()));
    const planned = await run(p.small, p.stores.small, 3, true);
    const { a, b } = await p.both();
    expect(a.report.outcome).toBe('ok');
    expect(a.report.counts).toEqual(b.report.counts);
    // 20 singles + dup-1 once + 4 occurrences; Town Hall, Library, Park, Church Hall, Late Hall; 3 terms.
    expect(a.report.counts.event.created).toBe(25);
    expect(a.report.counts.venue.created).toBe(5);
    expect(a.report.counts.category.created).toBe(3);
    expect(a.plan.counts).toEqual(planned.plan.counts);
    expect(a.report.problems.map((x) => x.message)).toEqual(b.report.problems.map((x) => x.message));
    expect(a.report.problems.map((x) => x.code)).toContain('ics_duplicate');
    expect(stateOf(p.small)).toEqual(stateOf(p.whole));
    const titles = await titlesIn(p.stores.small);
    expect(titles).toEqual(await titlesIn(p.stores.whole));
    expect(titles.filter((t) => t.startsWith('Dup'))).toEqual(['Dup, later']);
    // The events of the last batch have their venue and category: the references crossed batches.
    const target = await openLocalTarget({ dataFile: p.stores.small });
    try {
      for await (const e of target.list('event')) {
        if (e.body.title !== 'Event 19') continue;
        expect((e.body.venue as { venue: string }).venue).toBe('Late Hall');
        expect((e.body.categories as { name: string }[]).map((c) => c.name)).toEqual(['Late']);
      }
    } finally {
      await target.close();
    }

    // The unchanged re-run writes nothing, in batches as in one.
    const again = await p.both();
    expect(again.a.report.counts.event.unchanged).toBe(25);
    expect(again.a.report.counts).toEqual(again.b.report.counts);
    expect(again.a.report.requests.POST ?? 0).toBe(0);
  });

  it('deletes the events that left the source from every batch, and an event cancelled in it, as the whole plan does', async () => {
    const p = await pair('deletions');
    await writeFile(p.file, calendar(firstSource()));
    await p.both();
    // Gone: e2 (first batch), e11 (a middle one), e20 (the last), the series' occurrences (retitled: kept,
    // updated); e7 retitled; e9 cancelled.
    const next = firstSource()
      .filter((e) => !['e2', 'e11', 'e20'].includes(e.uid))
      .map((e) =>
        e.uid === 'e7' ? { ...e, title: 'Event 7, moved' } : e.uid === 'e9' ? { ...e, cancelled: true } : e,
      );
    await writeFile(p.file, calendar(next, 'Weekly choir (new room)'));
    const planned = await run(p.small, p.stores.small, 3, true);
    expect(planned.plan.counts.event).toMatchObject({ delete: 4, update: 5 });
    const { a, b } = await p.both();
    expect(a.report.outcome).toBe('ok');
    expect(a.plan.counts).toEqual(planned.plan.counts);
    expect(a.report.counts).toEqual(b.report.counts);
    expect(a.report.counts.event).toMatchObject({ deleted: 4, updated: 5 });
    expect(stateOf(p.small)).toEqual(stateOf(p.whole));
    const titles = await titlesIn(p.stores.small);
    expect(titles).toEqual(await titlesIn(p.stores.whole));
    expect(titles).not.toContain('Event 2');
    expect(titles).not.toContain('Event 9');
    expect(titles).not.toContain('Event 20');
    expect(titles).toContain('Event 7, moved');
  });

  it('holds every deletion back when there are too many, the cancelled one too', async () => {
    const p = await pair('guard', 0.1);
    await writeFile(p.file, calendar(firstSource()));
    await p.both();
    const next = firstSource()
      .filter((e) => !['e1', 'e5', 'e12', 'e17'].includes(e.uid))
      .map((e) => (e.uid === 'e3' ? { ...e, cancelled: true } : e));
    await writeFile(p.file, calendar(next));
    const planned = await run(p.small, p.stores.small, 3, true);
    const { a, b } = await p.both();
    expect(a.report.guard).toMatch(/5 of 25 events would be deleted, more than the 10% limit/);
    expect(a.report.guard).toBe(planned.report.guard);
    expect(a.report.guard).toBe(b.report.guard);
    expect(a.plan.counts).toEqual(planned.plan.counts);
    expect(a.report.counts.event).toMatchObject({ deleted: 0, skipped: 5 });
    expect(a.report.outcome).toBe('failed');
    expect(await titlesIn(p.stores.small)).toContain('Event 3');
    expect(stateOf(p.small)).toEqual(stateOf(p.whole));
  });
});

describe('the mapping in batches', () => {
  const record = (
    line: number,
    key: string,
    title: string,
    venue: string,
    category: string,
  ): EventRecord => ({
    origin: { file: 'events.csv', line },
    key,
    title,
    start: { kind: 'zoned', local: `2027-02-0${line} 18:00:00`, zone: 'UTC' },
    end: { kind: 'zoned', local: `2027-02-0${line} 20:00:00`, zone: 'UTC' },
    venue: { name: venue },
    organizers: [],
    categories: [category],
    tags: [],
  });
  const options = {
    pipeline: 'p',
    status: 'publish',
    categories: [],
    tags: [],
    featured: false,
    show_map: true,
    show_map_link: true,
  } as const;

  it('hands each venue and term on once, and a key repeated in a later batch only once, as the whole mapping does', () => {
    const records = [
      record(1, 'a', 'A', 'Hall', 'Music'),
      record(2, 'dup', 'Dup, first', 'Hall', 'Music'),
      record(3, 'b', 'B', 'Park', 'Talks'),
      record(4, 'c', 'C', 'Hall', 'Music'),
      record(5, 'dup', 'Dup, later', 'Library', 'Music'),
      record(6, 'd', 'D', 'Park', 'Talks'),
    ];
    const whole = mapRecords(records, options);
    const mapper = new Mapper(options);
    const first = mapper.map(records.slice(0, 3), (i) => i === 1);
    const second = mapper.map(records.slice(3));
    const byKey = (list: { kind: string; key: string }[]) =>
      [...list].sort((x, y) => `${x.kind}${x.key}`.localeCompare(`${y.kind}${y.key}`));
    expect(byKey([...first.entities, ...second.entities])).toEqual(byKey(whole.entities));
    expect([...first.problems, ...second.problems]).toEqual(whole.problems);
    expect(whole.problems.map((p) => p.message)).toEqual([
      'a second event with key "dup" (first at line 2); the later one is used',
    ]);
    // Library is first named in the second batch, before its events there.
    expect(second.entities.map((d) => `${d.kind}:${d.key}`)).toEqual([
      'venue:library',
      'event:c',
      'event:dup',
      'event:d',
    ]);
  });
});
