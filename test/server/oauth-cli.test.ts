/**
 * `npm run users -- client add|list|revoke` (B.2) run through `main(io)` on a temp SQLite file: the
 * printed credentials get a token from an app on that file, and revoking stops them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../src/cli/users.ts';
import { buildApp } from '../../src/server/app.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';

let dir: string;
let data: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'calsync-oauth-cli-'));
  data = join(dir, 'users.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function users(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await main({
    argv: [...argv, '--data', data],
    env: {},
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
  });
  return { code, out, err };
}

async function tokenStatus(id: string, secret: string): Promise<number> {
  const store = openSqliteStore(data);
  const app = await buildApp({ store, siteUrl: 'https://cal.example.org' });
  try {
    const res = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` },
      payload: { grant_type: 'client_credentials' },
    });
    return res.statusCode;
  } finally {
    await app.close();
  }
}

it('client add prints credentials once that get a token; client list shows it; client revoke stops it', async () => {
  expect((await users('add', 'alice', '--role', 'editor')).code).toBe(0);
  const added = await users('client', 'add', 'alice', '--name', 'importer');
  expect(added.code).toBe(0);
  expect(added.err).toBe('');
  const id = /client_id: (\S+)\n/.exec(added.out)?.[1];
  const secret = /client_secret \(shown once\): (\S+)\n/.exec(added.out)?.[1];
  expect(id && secret, added.out).toBeTruthy();
  expect(await tokenStatus(id!, secret!)).toBe(200);

  const listed = await users('client', 'list');
  expect(listed.out).toMatch(new RegExp(`^${id}\\talice\\timporter\\tcreated .+\\tactive\\n$`));
  // The secret is never shown again.
  expect(listed.out).not.toContain(secret);

  const revoked = await users('client', 'revoke', id!);
  expect(revoked.code).toBe(0);
  expect((await users('client', 'list')).out).toContain('\trevoked\n');
  expect(await tokenStatus(id!, secret!)).toBe(401);
});

it('client commands refuse unknown users, unknown clients and unknown subcommands', async () => {
  const noUser = await users('client', 'add', 'nobody');
  expect(noUser.code).toBe(1);
  expect(noUser.err).toContain('no user "nobody"');
  const noClient = await users('client', 'revoke', 'cs_nope');
  expect(noClient.code).toBe(1);
  expect(noClient.err).toContain('no OAuth client "cs_nope"');
  expect((await users('client', 'frobnicate')).code).toBe(1);
  expect((await users('--help')).out).toContain('client add <login>');
});
