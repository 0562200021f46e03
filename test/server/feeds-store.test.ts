/**
 * What the store keeps for feeds (migration 5): an event's SEQUENCE rises with changes of its time or
 * status and nothing else; an event that stops being published or is deleted leaves a tombstone with
 * its links until it is published again or pruned; a file of schema 4 is upgraded in place.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, migrate, schemaVersion } from '../../src/store/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { seedEvent, termRecord } from './fixtures.ts';

let store: Store;
beforeEach(async () => {
  store = openSqliteStore(':memory:');
});
afterEach(() => store.close());

const sequenceOf = async (id: number) => (await store.eventSequences([id])).get(id) ?? 0;

describe('event sequences', () => {
  it('start at 0 and rise once per change of start, end, all-day, zone or status, not of the title', async () => {
    const e = await seedEvent(store);
    expect(await sequenceOf(e.id)).toBe(0);
    await store.updateEvent({ ...e, title: 'Renamed', description: 'New text' });
    expect(await sequenceOf(e.id)).toBe(0);
    const moved = await store.updateEvent({
      ...e,
      start_utc: '2027-03-02 19:00:00',
      start_local: '2027-03-02 19:00:00',
    });
    expect(await sequenceOf(e.id)).toBe(1);
    const zoned = await store.updateEvent({ ...moved, timezone: 'Europe/Berlin' });
    expect(await sequenceOf(e.id)).toBe(2);
    await store.updateEvent({ ...zoned, status: 'draft' });
    expect(await sequenceOf(e.id)).toBe(3);
  });
});

describe('event tombstones', () => {
  it('keep an unpublished event with its terms and sequence, and forget it when it is published again', async () => {
    const music = await store.insertTerm(termRecord('categories', 'Music'));
    const e = await seedEvent(store, { category_ids: [music.id], title: 'Gig' });
    expect(await store.eventTombstones('2000-01-01 00:00:00')).toEqual([]);
    const trashed = await store.updateEvent({ ...e, status: 'trash' });
    const [t] = await store.eventTombstones('2000-01-01 00:00:00');
    expect(t).toMatchObject({
      id: e.id,
      title: 'Gig',
      term_ids: [music.id],
      sequence: 1,
      start_utc: e.start_utc,
    });
    await store.updateEvent({ ...trashed, status: 'publish' });
    expect(await store.eventTombstones('2000-01-01 00:00:00')).toEqual([]);
  });

  it('keep a deleted published event with one more sequence than it had, and not a deleted draft', async () => {
    const published = await seedEvent(store, { title: 'Published' });
    const draft = await seedEvent(store, { title: 'Draft', status: 'draft' });
    await store.deletePost(published.id);
    await store.deletePost(draft.id);
    const tombstones = await store.eventTombstones('2000-01-01 00:00:00');
    expect(tombstones.map((t) => [t.title, t.sequence])).toEqual([['Published', 1]]);
    expect((await store.eventSequences([published.id])).size).toBe(0);
  });

  it('of a trashed event that is then deleted carry the later sequence', async () => {
    const e = await seedEvent(store, { title: 'Twice' });
    await store.updateEvent({ ...e, status: 'trash' }); // sequence 1
    await store.deletePost(e.id); // sequence 2
    expect((await store.eventTombstones('2000-01-01 00:00:00')).map((t) => t.sequence)).toEqual([2]);
  });

  it('are pruned by removal time', async () => {
    const e = await seedEvent(store);
    await store.deletePost(e.id);
    const [t] = await store.eventTombstones('2000-01-01 00:00:00');
    expect(await store.eventTombstones('2999-01-01 00:00:00')).toEqual([]);
    expect(await store.pruneEventTombstones(t.removed_utc)).toBe(0);
    expect(await store.pruneEventTombstones('2999-01-01 00:00:00')).toBe(1);
    expect(await store.eventTombstones('2000-01-01 00:00:00')).toEqual([]);
  });
});

describe('upgrading a schema 4 file', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'calsync-feeds-store-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('adds sequences and tombstones and keeps the events', async () => {
    const path = join(dir, 'old.db');
    const db = new DatabaseSync(path);
    migrate(
      db,
      MIGRATIONS.filter((m) => m.version <= 4),
      path,
    );
    expect(schemaVersion(db)).toBe(4);
    await db.close();
    const old = openSqliteStore(path);
    // Reopened: migrated to the latest, and the triggers work on the upgraded file.
    const e = await seedEvent(old);
    await old.updateEvent({ ...e, status: 'trash' });
    expect((await old.eventTombstones('2000-01-01 00:00:00')).map((t) => t.id)).toEqual([e.id]);
    await old.close();
    const check = new DatabaseSync(path);
    expect(schemaVersion(check)).toBe(MIGRATIONS.at(-1)?.version);
    check.close();
  });
});
