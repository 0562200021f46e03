/**
 * A real app on a real store — in-memory or file SQLite, or, under `npm run test:pg`, an emptied
 * PostgreSQL database of the run's cluster (test/helpers/pg-global-setup.ts) — with one user per WordPress role
 * and an application password each, for tests over `app.inject` or a loopback port; and
 * `snapshot`, to prove that a rejected write wrote nothing.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { expect, inject } from 'vitest';
import { ROLES, type Role } from '../../src/model/index.ts';
import { type AppOptions, buildApp } from '../../src/server/app.ts';
import { createAppPassword } from '../../src/server/auth/app-passwords.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store, UserRecord } from '../../src/store/store.ts';
import { type PostgresStores, postgresStoresAt } from '../helpers/postgres-store.ts';

export const SITE = 'https://cal.example.org';
export const BASE = `${SITE}/api`;
export const NS = '/api/calendar/events/v1';
/** The tests' clock: "today" is 2026-11-21 (UTC site). */
export const NOW = new Date('2026-11-21T12:00:00Z');

export interface Harness {
  app: FastifyInstance;
  store: Store;
  users: Record<Role, UserRecord>;
  passwords: Record<Role, string>;
  /** Basic auth headers of a role's user, or none for anonymous. */
  auth(role?: Role): Record<string, string>;
  /** `app.inject` below the namespace: `call('GET', '/events', { as: 'admin' })`. */
  call(
    method: InjectOptions['method'],
    path: string,
    opts?: { as?: Role; body?: unknown; headers?: Record<string, string>; form?: Record<string, string> },
    // biome-ignore lint/suspicious/noExplicitAny: tests read deep into response documents.
  ): Promise<{ status: number; json: any; headers: Record<string, unknown>; body: string }>;
  /** A `POST` below the namespace that must answer 201 (as `administrator` unless told): the new document. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read deep into response documents.
  created(path: string, body: Record<string, unknown>, as?: Role): Promise<any>;
}

/** Every post and term in the store (ids 1–300), to prove that a rejected write wrote nothing. */
export async function snapshot(store: Store): Promise<string> {
  const ids = Array.from({ length: 300 }, (_, i) => i + 1);
  const posts = (await Promise.all(ids.map((id) => store.getPost(id)))).filter(Boolean);
  return JSON.stringify({ posts, terms: [...(await store.getTermsMany(ids)).values()] });
}

/**
 * Each role's application password, made (and hashed with argon2id) once per test worker: every app of the
 * harness stores that same real hash and verifies it for real on its first request, instead of hashing five
 * new passwords for every test (28 → 16 CPU-s for the events-write and venues route tests).
 */
const issued = new Map<Role, Promise<{ password: string; hash: string }>>();
function issuedPassword(role: Role): Promise<{ password: string; hash: string }> {
  let made = issued.get(role);
  if (!made) {
    const scratch = openSqliteStore(':memory:');
    made = scratch
      .insertUser({ login: role, email: `${role}@example.org`, role, display_name: role })
      .then((user) => createAppPassword(scratch, user, 'tests', '2026-01-01 00:00:00'))
      .then(async ({ password, record }) => {
        await scratch.close();
        return { password, hash: record.hash };
      });
    issued.set(role, made);
  }
  return made;
}

let postgres: Promise<PostgresStores> | undefined;

/**
 * The store of an app: a file when the test names one, else in memory — or, under `npm run test:pg`, a
 * PostgreSQL database (the test files of a worker share its databases, one per open store).
 */
export async function testStore(path?: string): Promise<Store> {
  const url = inject('postgresUrl');
  if (url === undefined || path !== undefined) return openSqliteStore(path ?? ':memory:');
  postgres ??= postgresStoresAt(url);
  return (await postgres).open();
}

export async function makeApp(options: Partial<AppOptions> & { path?: string } = {}): Promise<Harness> {
  const store = options.store ?? (await testStore(options.path));
  const users = {} as Record<Role, UserRecord>;
  const passwords = {} as Record<Role, string>;
  for (const role of ROLES) {
    const user =
      (await store.findUser(role)) ??
      (await store.insertUser({ login: role, email: `${role}@example.org`, role, display_name: role }));
    users[role] = user;
    const issued = await issuedPassword(role);
    await store.insertAppPassword({
      user_id: user.id,
      name: 'tests',
      hash: issued.hash,
      created_utc: '2026-01-01 00:00:00',
    });
    passwords[role] = issued.password;
  }
  // The route tests fail authentication on purpose, many times from one address: no throttle unless
  // a test asks for one (test/server/security-throttle.test.ts).
  const app = await buildApp({
    siteUrl: SITE,
    apiBase: BASE,
    now: () => NOW,
    authThrottle: false,
    ...options,
    store,
  });
  const auth = (role?: Role): Record<string, string> =>
    role ? { authorization: `Basic ${Buffer.from(`${role}:${passwords[role]}`).toString('base64')}` } : {};
  const call: Harness['call'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...auth(opts.as), ...opts.headers };
    let payload: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      payload = new URLSearchParams(opts.form).toString();
    } else if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    }
    const res = await app.inject({ method, url: `${NS}${path}`, headers, payload });
    let json: unknown;
    try {
      json = JSON.parse(res.body);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, headers: res.headers, body: res.body };
  };
  const created: Harness['created'] = async (path, body, as = 'administrator') => {
    const res = await call('POST', path, { as, body });
    expect(res.status, res.body).toBe(201);
    return res.json;
  };
  return { app, store, users, passwords, auth, call, created };
}
