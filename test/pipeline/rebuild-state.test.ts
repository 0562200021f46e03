/**
 * rebuildState against a real local target: what a pipeline wrote is recognised by slug suffix (events)
 * and natural key (venues by name and address, organizers and terms by name, whatever their case), other
 * pipelines' events are left alone, and what differs from the source is marked to be updated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import type { Desired } from '../../src/pipeline/desired.ts';
import { eventSlug, mapRecords } from '../../src/pipeline/map.ts';
import { REBUILT, rebuildState, slugSuffix } from '../../src/pipeline/rebuild-state.ts';
import type { EventRecord } from '../../src/sources/record.ts';
import type { Target } from '../../src/writer/target.ts';
import { tempDir } from '../writer/setup.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let target: Target;
beforeAll(async () => {
  dir = await tempDir();
  target = await openLocalTarget({ dataFile: `${dir.dir}/calendar.db` });
});
afterAll(async () => {
  await target.close();
  await dir.remove();
});

const record = (n: number, title = `Talk ${n}`): EventRecord => ({
  origin: { file: 'talks.ics', line: n },
  key: `talk-${n}@test`,
  uid: `talk-${n}@test`,
  title,
  start: { kind: 'zoned', local: `2027-02-0${n} 18:00:00`, zone: 'Europe/Paris' },
  end: { kind: 'zoned', local: `2027-02-0${n} 20:00:00`, zone: 'Europe/Paris' },
  venue: { name: 'Salle Pleyel', address: '252 Rue du Faubourg Saint-Honoré' },
  organizers: [{ name: 'Société Savante' }],
  categories: ['Lectures'],
  tags: ['science'],
});

const options = {
  pipeline: 'talks',
  timezone: 'Europe/Paris',
  status: 'publish' as const,
  categories: [],
  tags: [],
  featured: false,
  show_map: true,
  show_map_link: true,
};

/** Writes what a run of `pipeline` would have written, references resolved. */
async function written(entities: Desired[], pipeline = 'talks') {
  const ids = new Map<string, number>();
  for (const d of entities) {
    if (d.kind !== 'event') {
      ids.set(`${d.kind}\n${d.key}`, (await target.create(d.kind, d.fields)).id);
      continue;
    }
    const id = (kind: string, key: string) => ids.get(`${kind}\n${key}`);
    await target.create('event', {
      ...d.fields,
      slug: eventSlug(pipeline, d.key, d.label),
      venue: id('venue', d.refs.venue ?? ''),
      organizer: (d.refs.organizers ?? []).map((k) => id('organizer', k)),
      categories: (d.refs.categories ?? []).map((k) => id('category', k)),
      tags: (d.refs.tags ?? []).map((k) => id('tag', k)),
    });
  }
}

describe('rebuildState', () => {
  it('finds every kind a run wrote, unchanged, and no event of another pipeline', async () => {
    const mine = mapRecords([record(1), record(2)], options).entities;
    await written(mine);
    // Another pipeline with the same keys: its slugs carry another suffix.
    await written(mapRecords([record(3)], { ...options, pipeline: 'other' }).entities, 'other');

    const items = await rebuildState(target, mine);
    expect(items.map((i) => [i.kind, i.key])).toEqual([
      ['category', 'lectures'],
      ['tag', 'science'],
      ['venue', 'salle pleyel|252 rue du faubourg saint-honoré'],
      ['organizer', 'société savante'],
      ['event', 'talk-1@test'],
      ['event', 'talk-2@test'],
    ]);
    expect(items.every((i) => i.hash !== REBUILT)).toBe(true);
    expect(items.every((i) => i.remoteFields && Object.keys(i.remoteFields).length > 0)).toBe(true);
  });

  it('marks an event whose source changed since to be updated, and finds it whatever its title became', async () => {
    const changed = mapRecords([record(1, 'Talk 1 (moved to March)'), record(2)], options).entities;
    const items = await rebuildState(target, changed);
    const events = items.filter((i) => i.kind === 'event');
    expect(events.map((i) => [i.key, i.hash === REBUILT])).toEqual([
      ['talk-1@test', true],
      ['talk-2@test', false],
    ]);
    expect(slugSuffix(events[0].slug)).toBe(slugSuffix(eventSlug('talks', 'talk-1@test', 'x')));
  });

  it('does not take a venue at another address for this one, and marks the events that would move to it', async () => {
    const elsewhere = mapRecords(
      [{ ...record(1), venue: { name: 'Salle Pleyel', address: '1 Place de la Concorde' } }],
      options,
    ).entities;
    const items = await rebuildState(target, elsewhere);
    expect(items.some((i) => i.kind === 'venue')).toBe(false);
    expect(items.some((i) => i.kind === 'event' && i.hash === REBUILT)).toBe(true);
  });

  it('marks an event the site shows with no venue when its venue is gone there too (deleted on the site)', async () => {
    const gone = { ...record(4), venue: { name: 'Théâtre du Châtelet', address: '1 Place du Châtelet' } };
    const entities = mapRecords([gone], options).entities;
    // On the site: the event, its venue deleted there (and the event unlinked from it).
    await written(
      entities
        .filter((d) => d.kind !== 'venue')
        .map((d) => ({ ...d, refs: { ...d.refs, venue: undefined } })),
    );
    const items = await rebuildState(target, entities);
    expect(items.some((i) => i.kind === 'venue')).toBe(false);
    expect(items.find((i) => i.kind === 'event')?.hash).toBe(REBUILT);
  });

  it('finds a category and a venue renamed on the site by the slug it made from their first names, and keeps the names', async () => {
    const named = (n: number): EventRecord => ({
      ...record(n),
      venue: { name: 'Maison de la Radio', address: '116 Avenue du Président Kennedy' },
      categories: ['Concerts'],
    });
    const entities = mapRecords([named(5)], options).entities;
    await written(entities);
    const find = async (kind: 'category' | 'venue', name: string) => {
      for await (const r of target.list(kind)) if ((r.body.name ?? r.body.venue) === name) return r.id;
      throw new Error(`no ${kind} ${name}`);
    };
    const category = await find('category', 'Concerts');
    const venue = await find('venue', 'Maison de la Radio');
    await target.update('category', category, { name: 'Konzerte' });
    await target.update('venue', venue, { venue: 'Radio France' });

    const items = await rebuildState(target, entities);
    const of = (kind: string) => items.find((i) => i.kind === kind);
    expect([of('category')?.remoteId, of('category')?.hash === REBUILT]).toEqual([category, false]);
    expect([of('venue')?.remoteId, of('venue')?.hash === REBUILT]).toEqual([venue, false]);
    expect(of('event')?.hash === REBUILT).toBe(false);
  });
});
