/** Contract: users and application passwords (B.2), and `transaction`. */
import { describe, expect, it } from 'vitest';
import type { VenueRecord } from '../../../src/store/store.ts';
import { termRecord } from '../../server/fixtures.ts';
import { eventOn, eventQuery, newVenue, type OpenStore, useStore } from './fixtures.ts';

export function userContract(open: OpenStore): void {
  describe('users', () => {
    const store = useStore(open);

    it('findUser matches login or e-mail case-insensitively', async () => {
      const s = store();
      const ann = await s.insertUser({
        login: 'Ann',
        email: 'ann@example.org',
        role: 'editor',
        display_name: 'Ann A.',
      });
      const bob = await s.insertUser({
        login: 'bob',
        email: 'Bob@Example.org',
        role: 'author',
        display_name: 'Bob',
      });
      expect(ann).toEqual({
        id: ann.id,
        login: 'Ann',
        email: 'ann@example.org',
        role: 'editor',
        display_name: 'Ann A.',
      });
      expect(await s.getUser(ann.id)).toEqual(ann);
      expect(await s.findUser('ann')).toEqual(ann);
      expect(await s.findUser('ANN@EXAMPLE.ORG')).toEqual(ann);
      expect(await s.findUser('bob@example.org')).toEqual(bob);
      expect(await s.findUser('carol')).toBeUndefined();
      expect(await s.listUsers()).toEqual([ann, bob]);
    });

    it('application passwords: listed per user, touched, deleted; each names its user while it exists', async () => {
      const s = store();
      const ann = await s.insertUser({ login: 'ann', email: 'a@x.org', role: 'editor', display_name: 'Ann' });
      const bob = await s.insertUser({ login: 'bob', email: 'b@x.org', role: 'editor', display_name: 'Bob' });
      const p1 = await s.insertAppPassword({
        user_id: ann.id,
        name: 'sync',
        hash: 'h1',
        created_utc: '2027-01-01 00:00:00',
      });
      const p2 = await s.insertAppPassword({
        user_id: ann.id,
        name: 'cli',
        hash: 'h2',
        created_utc: '2027-01-02 00:00:00',
      });
      await s.insertAppPassword({
        user_id: bob.id,
        name: 'x',
        hash: 'h3',
        created_utc: '2027-01-03 00:00:00',
      });
      expect(p1).toEqual({
        id: p1.id,
        user_id: ann.id,
        name: 'sync',
        hash: 'h1',
        created_utc: '2027-01-01 00:00:00',
        last_used_utc: null,
      });
      expect(await s.appPasswords(ann.id)).toEqual([p1, p2]);
      expect(await s.appPasswordUser(p1.id)).toEqual(ann);
      await s.touchAppPassword(p2.id, '2027-02-01 10:00:00');
      await s.deleteAppPassword(p1.id);
      expect(await s.appPasswords(ann.id)).toEqual([{ ...p2, last_used_utc: '2027-02-01 10:00:00' }]);
      expect(await s.appPasswordUser(p1.id)).toBeUndefined();
      expect(await s.appPasswordUser(p2.id)).toEqual(ann);
    });
  });
}

export function transactionContract(open: OpenStore): void {
  describe('transaction', () => {
    const store = useStore(open);

    it("returns fn's value and keeps its writes", async () => {
      const s = store();
      const id = await s.transaction(async () => (await s.insertEvent(eventOn(10))).id);
      expect(await s.getEvent(id)).toBeDefined();
    });

    it('rolls back every write when fn throws, and rethrows', async () => {
      const s = store();
      const venue = await s.insertLinked<VenueRecord>(newVenue({ venue: 'Before' }));
      const boom = new Error('boom');
      await expect(
        s.transaction(async () => {
          await s.insertEvent(eventOn(10, 10, { venue_id: venue.id }));
          await s.updateLinked({ ...venue, venue: 'During' });
          await s.insertTerm(termRecord('tags', 'T'));
          throw boom;
        }),
      ).rejects.toThrow(boom);
      expect((await s.listEvents(eventQuery())).total).toBe(0);
      expect(await s.getLinked('venue', venue.id)).toEqual(venue);
      expect(await s.findTermBySlug('tags', 't')).toBeUndefined();
    });

    it('nested calls join the outer transaction: an outer throw undoes inner writes too', async () => {
      const s = store();
      await expect(
        s.transaction(async () => {
          await s.transaction(async () => await s.insertEvent(eventOn(10)));
          throw new Error('outer');
        }),
      ).rejects.toThrow('outer');
      expect((await s.listEvents(eventQuery())).total).toBe(0);
    });

    it('a failed nested call that the caller catches undoes only its own writes', async () => {
      const s = store();
      await s.transaction(async () => {
        await s.insertEvent(eventOn(10));
        try {
          await s.transaction(async () => {
            await s.insertEvent(eventOn(11));
            throw new Error('inner');
          });
        } catch {
          // the caller carries on
        }
        await s.insertEvent(eventOn(12));
      });
      const days = (await s.listEvents(eventQuery())).items.map((e) => e.start_utc.slice(8, 10));
      expect(days).toEqual(['10', '12']);
    });

    it('a write that fails leaves nothing behind', async () => {
      const s = store();
      // Organizer 999 does not exist: the event must not be stored half-linked.
      await expect(s.insertEvent(eventOn(10, 10, { organizer_ids: [999] }))).rejects.toThrow();
      expect((await s.listEvents(eventQuery())).total).toBe(0);
    });

    it('transactions of different callers run one after another; outside reads never see uncommitted writes', async () => {
      const s = store();
      const seen: number[] = [];
      const order: string[] = [];
      // Each awaits between its writes, so the other caller's code runs in between.
      const writer = (name: string, day: number) =>
        s.transaction(async () => {
          order.push(`${name} begins`);
          await s.insertEvent(eventOn(day));
          await new Promise((resolve) => setTimeout(resolve, 20));
          await s.insertEvent(eventOn(day + 1));
          order.push(`${name} ends`);
        });
      const reader = async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push((await s.listEvents(eventQuery())).total);
      };
      const failing = s.transaction(async () => {
        await s.insertEvent(eventOn(20));
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('undone');
      });
      await Promise.all([writer('a', 10), writer('b', 12), reader(), failing.catch(() => undefined)]);
      expect(order).toEqual(['a begins', 'a ends', 'b begins', 'b ends']);
      // The read waited for a commit: 2 or 4 events, never 1, 3 or the 5th that was undone.
      expect(seen).toHaveLength(1);
      expect([2, 4]).toContain(seen[0]);
      expect((await s.listEvents(eventQuery())).total).toBe(4);
    });

    it('calls made inside the transaction, in async functions it awaits, are part of it', async () => {
      const s = store();
      const helper = async (day: number) => (await s.insertEvent(eventOn(day))).id;
      await expect(
        s.transaction(async () => {
          await helper(10);
          await Promise.all([helper(11), helper(12)]);
          throw new Error('undone');
        }),
      ).rejects.toThrow('undone');
      expect((await s.listEvents(eventQuery())).total).toBe(0);
    });
  });
}
