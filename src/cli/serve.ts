/**
 * `npm run serve -- [--port 8080] [--host 127.0.0.1] [--data data/calendar.db] [--site URL] [--demo]
 * [--trust-proxy <proxies>]`
 * Serves the calendar/events/v1 API over the embedded SQLite store, or a PostgreSQL database (`--data
 * postgres://…` or CALSYNC_DATABASE_URL), until SIGINT/SIGTERM. With `--demo` the store is reset to the
 * sample calendar on start and every day at 00:00 UTC (src/embedded/demo.ts); on PostgreSQL once across the
 * servers sharing the database.
 */
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DemoReset } from '../embedded/demo.ts';
import { type FeedSpec, serverFeeds } from '../export/feed-spec.ts';
import { buildApp } from '../server/app.ts';
import type { TrustProxy } from '../server/config.ts';
import type { Notices } from '../store/notices.ts';
import { isDatabaseUrl, openStore, storeName } from '../store/open.ts';
import type { PostgresStore } from '../store/postgres.ts';
import type { Store } from '../store/store.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';

export const DEFAULT_DATA = 'data/calendar.db';
/** Demo mode's own file, so that `--demo` never resets the store `npm run import` fills. */
export const DEMO_DATA = 'data/demo.db';
export const DEMO_SAMPLE = 'samples/community-calendar.ics';

const HELP = `Usage: npm run serve -- [options]

Serves the calendar/events/v1 REST API over the embedded SQLite store or a PostgreSQL database.

Options:
  --port <n>        port to listen on (default 8080; 0 picks a free one)
  --host <addr>     address to bind (default 127.0.0.1)
  --data <file|url> SQLite file (default ${DEFAULT_DATA}, ${DEMO_DATA} with --demo; created if missing),
                    or a PostgreSQL database postgres://user:password@host/db (default
                    CALSYNC_DATABASE_URL when set; migrated on start)
  --site <url>      public site URL for links (default http://<host>:<port>)
  --api-base <url>  public API root (default the site URL)
  --timezone <tz>   site time zone (default UTC)
  --cache-mb <n>    memory for kept GET answers, MiB (default 64; 0 turns the response cache off)
  --trust-proxy <p> behind a reverse proxy: take the client address from X-Forwarded-For when the
                    request comes from one of these proxies — addresses/CIDRs such as
                    127.0.0.1,10.0.0.0/8, or loopback, or true (any peer; only if nothing else can
                    reach the port). Default off: X-Forwarded-For is ignored, and the failed-login
                    throttle counts every client of a proxy as one address
  --feeds <file>    also serve the feeds: of this pipeline file at /feeds/<name>.ics (repeatable);
                    /feeds/all.ics (every published event) is always served
  --demo            demo mode: load the sample calendar on start and reset to it every day at
                    00:00 UTC (users and OAuth clients are kept); the pages show a banner. On
                    PostgreSQL the servers sharing the database reset it once; a database holding
                    content the demo did not load is refused
  --sample <file>   the calendar --demo resets to (default ${DEMO_SAMPLE})
  -h, --help        show this help

Examples:
  npm run serve
  npm run serve -- --port 9000 --data /var/lib/calsync/calendar.db
  npm run serve -- --data postgres://calsync@127.0.0.1/calsync
  npm run serve -- --demo
  npm run serve -- --demo --data postgres://calsync@127.0.0.1/calsync_demo
  npm run serve -- --host 127.0.0.1 --trust-proxy loopback    # behind nginx on the same machine
  npm run users -- add alice --role editor    # then use Basic auth alice:<app password>`;

async function run(io: CliIO): Promise<number> {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: io.argv,
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string' },
        site: { type: 'string' },
        'api-base': { type: 'string' },
        timezone: { type: 'string' },
        'cache-mb': { type: 'string', default: '64' },
        'trust-proxy': { type: 'string' },
        feeds: { type: 'string', multiple: true },
        demo: { type: 'boolean' },
        sample: { type: 'string', default: DEMO_SAMPLE },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    io.stderr.write(`serve: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr.write(`serve: --port must be an integer between 0 and 65535, got "${values.port}"\n`);
    return 2;
  }
  const cacheMb = Number(values['cache-mb']);
  if (!(cacheMb >= 0)) {
    io.stderr.write(`serve: --cache-mb must be a number ≥ 0, got "${values['cache-mb']}"\n`);
    return 2;
  }
  const trustProxy = parseTrustProxy(values['trust-proxy'] as string | undefined);
  if (trustProxy === null) {
    io.stderr.write(`serve: --trust-proxy must be true or proxy addresses, got "${values['trust-proxy']}"\n`);
    return 2;
  }
  const host = values.host as string;
  // --demo never resets the file `npm run import` fills by default; a database it is pointed at (--data
  // or CALSYNC_DATABASE_URL) must be empty or the demo's own (src/embedded/demo-postgres.ts).
  const envUrl = io.env.CALSYNC_DATABASE_URL;
  const data =
    (values.data as string | undefined) ??
    (values.demo ? (envUrl && isDatabaseUrl(envUrl) ? envUrl : DEMO_DATA) : (envUrl ?? DEFAULT_DATA));
  const onDatabase = isDatabaseUrl(data);
  const dataFile = storeName(data);
  let feeds: FeedSpec[];
  try {
    feeds = await serverFeeds((values.feeds as string[] | undefined) ?? [], io.env);
  } catch (err) {
    io.stderr.write(`serve: --feeds: ${(err as Error).message}\n`);
    return 2;
  }
  let store: Store;
  try {
    // A read-only data file is served for reading (writes answer 503) rather than not at all.
    store = await openStore(data, { readOnlyFallback: true });
  } catch (err) {
    io.stderr.write(`serve: ${(err as Error).message}\n`);
    return 2;
  }
  // Several servers may share a database: each hears of the others' commits (its caches) and failed
  // logins (the throttle) through LISTEN/NOTIFY. Loaded only then, as the PostgreSQL client is.
  let notices: Notices | undefined;
  if (onDatabase) {
    try {
      notices = await (await import('../store/notices.ts')).openNotices(data, {
        onError: (err) => io.stderr.write(`serve: notices from ${dataFile}: ${err.message} (retrying)\n`),
      });
      await (store as PostgresStore).shareChanges(notices);
    } catch (err) {
      await notices?.close();
      await store.close();
      io.stderr.write(
        `serve: ${dataFile}: cannot listen for other servers' changes: ${(err as Error).message}\n`,
      );
      return 2;
    }
  }
  if ((store as { readOnly?: boolean }).readOnly) {
    io.stderr.write(
      `serve: ${dataFile} is read-only: serving reads; writes answer 503 rest_storage_read_only\n`,
    );
  }
  const siteUrl =
    (values.site as string | undefined) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const apiBase = values['api-base'] as string | undefined;
  const siteTimezone = values.timezone as string | undefined;
  // Made once the app is, to report through its logger; the pages ask it for the next reset.
  let demo: DemoReset | undefined;
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp({
      store,
      feeds,
      siteUrl,
      apiBase,
      siteTimezone,
      trustProxy,
      notices,
      demo: values.demo ? { nextReset: () => demo!.nextReset() } : undefined,
      responseCache: { maxEntries: cacheMb > 0 ? 2_000 : 0, maxBytes: cacheMb * 1024 * 1024 },
      // Beside the file; with a database, where the default file would be.
      uploadsDir: join(dirname(onDatabase ? resolve(DEFAULT_DATA) : dataFile), 'uploads'),
      logger: { level: io.env.LOG_LEVEL ?? 'info' },
    });
  } catch (err) {
    await notices?.close();
    await store.close();
    io.stderr.write(`serve: ${(err as Error).message}\n`);
    return 2;
  }
  if (notices) app.addHook('onClose', () => notices.close());
  if (values.demo) {
    demo = new DemoReset({
      dataFile: onDatabase ? undefined : dataFile,
      store,
      sampleFile: values.sample as string,
      siteUrl,
      apiBase,
      siteTimezone,
      logger: app.log,
    });
    try {
      const loaded = await demo.resetOnStart();
      demo.start();
      app.addHook('onClose', async () => demo?.stop());
      const how = loaded.loaded ? '' : ' (loaded today by another server on the database)';
      io.stdout.write(
        `calsync demo: ${loaded.events} events from ${values.sample}${how}; reset every day at 00:00 UTC, ` +
          `next ${demo.nextReset().toISOString()}\n`,
      );
    } catch (err) {
      await app.close();
      io.stderr.write(`serve: --demo: ${(err as Error).message}\n`);
      return 1;
    }
  }
  let address: string;
  try {
    address = await app.listen({ port, host });
  } catch (err) {
    await app.close(); // closes the store too
    io.stderr.write(`serve: cannot listen on ${host}:${port}: ${(err as Error).message}\n`);
    return 1;
  }
  io.stdout.write(`calsync serving ${dataFile} at ${address}/calendar/events/v1\n`);
  await new Promise<void>((done) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => done());
  });
  await app.close();
  return 0;
}

/**
 * `--trust-proxy` as Fastify's `trustProxy`: `true`/`false`, or a comma-separated list of addresses,
 * CIDRs and proxy-addr's names (loopback, linklocal, uniquelocal); null when it names none.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy | null {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.length ? list : null;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
