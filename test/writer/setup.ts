/**
 * What the writer's tests run against: our real server (buildApp over a real SQLite file in a temp
 * folder) listening on a loopback port, with an administrator and an application password; and bodies
 * of each kind as the pipeline would send them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Kind } from '../../src/model/kind.ts';
import type { Role } from '../../src/model/status.ts';
import { buildApp } from '../../src/server/app.ts';
import { createAppPassword } from '../../src/server/auth/app-passwords.ts';
import { createOAuthClient } from '../../src/server/auth/oauth-clients.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';

export interface LoopbackServer {
  app: FastifyInstance;
  /** The API root, e.g. `http://127.0.0.1:41234` (routes at `/calendar/events/v1/…`). */
  url: string;
  username: string;
  password: string;
  close(): Promise<void>;
}

export async function tempDir(): Promise<{ dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'calsync-writer-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ServerSetup {
  /** The server's clock (token expiry, the default list window); default the real one. */
  now?: () => Date;
}

/** A user `importer` in `store` with one application password, which is returned. */
export async function createImporter(store: Store, role: Role = 'administrator'): Promise<string> {
  const user = await store.insertUser({
    login: 'importer',
    email: 'importer@example.org',
    role,
    display_name: 'Importer',
  });
  return (await createAppPassword(store, user, 'writer tests', '2026-01-01 00:00:00')).password;
}

export async function startServer(dataFile: string, setup: ServerSetup = {}): Promise<LoopbackServer> {
  const store = openSqliteStore(dataFile);
  const password = await createImporter(store);
  // A site URL without a path: the routes live at `/calendar/events/v1/…`, as with `npm run serve`.
  const app = await buildApp({ store, siteUrl: 'http://127.0.0.1:8080', now: setup.now });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url, username: 'importer', password, close: () => app.close() };
}

/** A complete write body of each kind (contract B.6.2, B.10.1, B.11), unique by `n`. */
export function bodyOf(
  kind: Kind,
  n: number | string,
  refs: Record<string, unknown> = {},
): Record<string, unknown> {
  switch (kind) {
    case 'category':
      return { name: `Category ${n}`, slug: `category-${n}`, description: '' };
    case 'tag':
      return { name: `Tag ${n}`, slug: `tag-${n}`, description: '' };
    case 'venue':
      return {
        venue: `Venue ${n}`,
        slug: `venue-${n}`,
        city: 'Springfield',
        show_map: 'true',
        show_map_link: 'true',
      };
    case 'organizer':
      return { organizer: `Organizer ${n}`, slug: `organizer-${n}`, email: `org${n}@example.org` };
    case 'event':
      return {
        title: `Event ${n}`,
        slug: `event-${n}`,
        status: 'publish',
        start_date: '2027-03-01 19:00:00',
        end_date: '2027-03-01 22:00:00',
        timezone: 'Europe/Berlin',
        all_day: false,
        cost: ['10', '25'],
        website: 'https://example.com/events',
        show_map: true,
        show_map_link: true,
        ...refs,
      };
  }
}

/** The field an update changes, and the value to change it to, per kind. */
export const EDIT: Record<Kind, [field: string, value: string]> = {
  category: ['description', 'Edited'],
  tag: ['description', 'Edited'],
  venue: ['city', 'Shelbyville'],
  organizer: ['phone', '+1 555 0100'],
  event: ['title', 'Edited event'],
};

export const KINDS: readonly Kind[] = ['category', 'tag', 'venue', 'organizer', 'event'];

/** An OAuth client acting as the server's administrator, as `npm run users -- client add importer` makes. */
export async function addOAuthClient(server: LoopbackServer): Promise<{ clientId: string; secret: string }> {
  const user = await server.app.store.findUser(server.username);
  if (!user) throw new Error(`no user ${server.username}`);
  const { secret, record } = await createOAuthClient(server.app.store, user, 'sync', '2026-01-01 00:00:00');
  return { clientId: record.client_id, secret };
}
