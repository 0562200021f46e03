/**
 * Issue 15 item 5: a list's ids are kept across event inserts and the new matches put in their places,
 * instead of reading every id again after each create. Whatever the writes, a list read from the kept
 * ids must equal the same list read afresh by another connection to the same file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite.ts';
import type { EventQuery } from '../../src/store/store.ts';
import { eventRecord, termRecord } from '../server/fixtures.ts';
import { eventQuery, ids } from './contract/fixtures.ts';

const root = mkdtempSync(join(tmpdir(), 'calsync-lists-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A small deterministic generator, so a failure repeats. */
function random(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

describe('kept lists of events', () => {
  it('equal a fresh read after every insert, update, delete and unpublish, in every filter and page', async () => {
    const path = join(root, 'lists.db');
    const store = SqliteStore.open(path);
    const fresh = () => SqliteStore.open(path);
    const music = await store.insertTerm(termRecord('categories', 'Music'));
    const dance = await store.insertTerm(termRecord('categories', 'Dance'));
    const pick = random(7);
    const words = ['jazz', 'salsa', 'Café', 'chess'];
    const created: number[] = [];
    const insert = async () => {
      // Many share a start (and a publication date): the order's ties are broken by the later keys.
      const day = 1 + pick(20);
      const hour = String(8 + pick(3)).padStart(2, '0');
      const start = `2026-12-${String(day).padStart(2, '0')} ${hour}:00:00`;
      const end = `2026-12-${String(day).padStart(2, '0')} 23:00:00`;
      const e = await store.insertEvent(
        eventRecord({
          title: `${words[pick(4)]} night ${created.length}`,
          password: pick(6) === 0 ? 'secret' : null,
          description: pick(2) ? 'bring your own jazz records' : '',
          status: pick(5) === 0 ? 'draft' : 'publish',
          start_local: start,
          end_local: end,
          start_utc: start,
          end_utc: end,
          date_utc: `2026-11-${String(1 + pick(3)).padStart(2, '0')} 10:00:00`,
          category_ids: pick(2) ? [music.id] : [dance.id],
          hide_from_listings: pick(10) === 0,
        }),
      );
      created.push(e.id);
    };
    const queries: EventQuery[] = [
      eventQuery({ limit: 5 }),
      eventQuery({ limit: 5, offset: 5 }),
      eventQuery({ limit: 100, endsAfter: '2026-12-10 00:00:00' }),
      eventQuery({ limit: 100, categoryIds: [music.id] }),
      eventQuery({ limit: 100, searchWords: ['jazz'] }),
      // Searches: through the index, with short words (LIKE), and without the protected text.
      eventQuery({ limit: 100, searchWords: ['café', 'ni'], categoryIds: [music.id] }),
      eventQuery({
        limit: 100,
        searchWords: ['jazz'],
        protectedText: { ownerId: 999, unpublishedOnly: false },
      }),
      eventQuery({ limit: 100, include: created.slice(0, 3) }),
    ];
    const check = async (step: string) => {
      const other = fresh();
      for (const q of queries) {
        const kept = await store.listEvents(q);
        const read = await other.listEvents(q);
        expect({ step, q, ids: ids(kept.items), total: kept.total }).toEqual({
          step,
          q,
          ids: ids(read.items),
          total: read.total,
        });
      }
      await other.close();
    };
    for (let i = 0; i < 10; i++) await insert();
    queries[7] = eventQuery({ limit: 100, include: created.slice(0, 3) });
    await check('first read');
    for (let round = 0; round < 60; round++) {
      await insert();
      if (round % 15 === 7) {
        const e = (await store.getEvent(created[pick(created.length)]))!;
        await store.updateEvent({
          ...e,
          start_utc: '2026-12-02 07:00:00',
          start_local: '2026-12-02 07:00:00',
        });
      }
      if (round % 20 === 11)
        await store.updateEvent({
          ...(await store.getEvent(created[pick(created.length)]))!,
          status: 'draft',
        });
      if (round % 25 === 13) await store.deletePost(created.splice(pick(created.length), 1)[0]);
      // The search index catching up changes no answer (a kept search list stays as it is).
      if (round % 10 === 4) store.drainSearchIndex();
      await check(`round ${round}`);
    }
    await store.close();
  });
});
