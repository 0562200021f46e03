/**
 * `openLocalTarget({ dataFile })`: the embedded target — our own server app built in-process over the
 * SQLite file that `npm run serve` serves, called through `app.inject` (no socket, no port). STYLE.md:
 * "The local import target uses the same app in-process", so imports obey exactly the API's rules.
 *
 * It authenticates with an extra scheme, `Local calsync`, that exists only on this in-process app; the
 * app that `serve` exposes to the network never has it. The caller is an administrator named `calsync`,
 * created in the store on first use (like `npm run users -- add calsync --role administrator`).
 */
import { resolve } from 'node:path';
import { buildApp } from '../server/app.ts';
import { openSqliteStore } from '../server/store/sqlite.ts';
import type { Store, UserRecord } from '../server/store/store.ts';
import { createTarget } from './api-target.ts';
import type { RequesterOptions } from './requester.ts';
import type { Target } from './target.ts';
import { flattenHeaders, queryString, type Transport } from './transport.ts';

export const LOCAL_USER = 'calsync';
const NAMESPACE = 'calendar/events/v1';

export interface LocalTargetOptions extends Omit<RequesterOptions, 'queue'> {
  /** SQLite file of the server (`npm run serve -- --data`); created if missing. */
  dataFile: string;
  /** Public site URL for permalinks; default `http://127.0.0.1:8080`, as `npm run serve`. */
  siteUrl?: string;
  /** Public API root; default the site URL (routes then live at `/calendar/events/v1/…`). */
  apiBase?: string;
  /** Site time zone; default UTC, as `npm run serve`. */
  siteTimezone?: string;
}

export async function openLocalTarget(options: LocalTargetOptions): Promise<Target> {
  const dataFile = resolve(options.dataFile);
  const store = openSqliteStore(dataFile);
  let transport: Transport;
  try {
    transport = await localTransport(store, options, `local ${options.dataFile}`);
  } catch (err) {
    store.close();
    throw err;
  }
  // In-process writes contend for one SQLite file and one event loop: more than one in flight gains nothing.
  return createTarget(transport, {
    concurrency: 1,
    ...options,
    namespace: NAMESPACE,
    label: transport.label,
  });
}

async function localTransport(store: Store, options: LocalTargetOptions, label: string): Promise<Transport> {
  const user = localUser(store);
  const app = await buildApp({
    store,
    siteUrl: options.siteUrl,
    apiBase: options.apiBase,
    siteTimezone: options.siteTimezone,
    // Response caching pays off for many readers; the writer reads each item about once.
    responseCache: { maxEntries: 0, maxBytes: 0 },
    schemes: { local: async () => user },
  });
  const prefix = app.config.apiPrefix;
  return {
    label,
    async send(req) {
      const res = await app.inject({
        method: req.method,
        url: `${prefix}${req.path}${queryString(req.query)}`,
        headers: {
          authorization: `Local ${LOCAL_USER}`,
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        payload: req.body === undefined ? undefined : JSON.stringify(req.body),
      });
      return { status: res.statusCode, headers: flattenHeaders(res.headers), text: res.body };
    },
    close: () => app.close(),
  };
}

/** The administrator the local target writes as; created on first use. */
function localUser(store: Store): UserRecord {
  const found = store.findUser(LOCAL_USER);
  if (found) {
    if (found.role !== 'administrator') {
      throw new Error(
        `user "${LOCAL_USER}" exists with role ${found.role}; the local target needs it to be an administrator`,
      );
    }
    return found;
  }
  return store.insertUser({ login: LOCAL_USER, email: '', role: 'administrator', display_name: 'calsync' });
}
