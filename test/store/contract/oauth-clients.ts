/** Contract: OAuth clients and the token signing key (B.2). */
import { describe, expect, it } from 'vitest';
import type { OpenStore } from './fixtures.ts';
import { useStore } from './fixtures.ts';

export function oauthClientContract(open: OpenStore): void {
  describe('OAuth clients', () => {
    const store = useStore(open);

    it('a client is found by client_id, listed, and stays listed but marked once revoked', async () => {
      const s = store();
      const ann = await s.insertUser({ login: 'ann', email: 'a@x.org', role: 'editor', display_name: 'Ann' });
      const bob = await s.insertUser({ login: 'bob', email: 'b@x.org', role: 'author', display_name: 'Bob' });
      const c1 = await s.insertOAuthClient({
        client_id: 'cs_one',
        secret_hash: 'h1',
        user_id: ann.id,
        name: 'importer',
        created_utc: '2027-01-01 00:00:00',
      });
      const c2 = await s.insertOAuthClient({
        client_id: 'cs_two',
        secret_hash: 'h2',
        user_id: bob.id,
        name: 'feed',
        created_utc: '2027-01-02 00:00:00',
      });
      expect(c1).toEqual({
        id: c1.id,
        client_id: 'cs_one',
        secret_hash: 'h1',
        user_id: ann.id,
        name: 'importer',
        created_utc: '2027-01-01 00:00:00',
        revoked: false,
      });
      expect(await s.findOAuthClient('cs_one')).toEqual(c1);
      expect(await s.findOAuthClient('CS_ONE')).toBeUndefined();
      expect(await s.listOAuthClients()).toEqual([c1, c2]);

      expect(await s.revokeOAuthClient('cs_one')).toBe(true);
      expect(await s.revokeOAuthClient('cs_nope')).toBe(false);
      expect(await s.findOAuthClient('cs_one')).toEqual({ ...c1, revoked: true });
      expect(await s.listOAuthClients()).toEqual([{ ...c1, revoked: true }, c2]);
    });

    it('client_id is unique', async () => {
      const s = store();
      const ann = await s.insertUser({ login: 'ann', email: 'a@x.org', role: 'editor', display_name: 'Ann' });
      const rec = {
        client_id: 'cs_x',
        secret_hash: 'h',
        user_id: ann.id,
        name: 'n',
        created_utc: '2027-01-01 00:00:00',
      };
      await s.insertOAuthClient(rec);
      await expect(s.insertOAuthClient(rec)).rejects.toThrow();
      expect(await s.listOAuthClients()).toHaveLength(1);
    });

    it('signingKey generates a key once and returns the same bytes ever after', async () => {
      const s = store();
      let calls = 0;
      const generate = () => {
        calls++;
        return new Uint8Array(32).fill(calls);
      };
      const first = await s.signingKey('oauth', generate);
      expect(first).toEqual(new Uint8Array(32).fill(1));
      expect(await s.signingKey('oauth', generate)).toEqual(first);
      expect(calls).toBe(1);
      expect(await s.signingKey('other', generate)).toEqual(new Uint8Array(32).fill(2));
    });
  });
}
