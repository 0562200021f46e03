/**
 * `npm run serve -- [--port 8080] [--host 127.0.0.1] [--data data/calendar.db] [--site URL]`
 * Serves the calendar/events/v1 API over the embedded SQLite store until SIGINT/SIGTERM.
 */
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../server/app.ts';
import { openSqliteStore } from '../server/store/sqlite.ts';
import { type CliIO, runMain } from './io.ts';

export const DEFAULT_DATA = 'data/calendar.db';

const HELP = `Usage: npm run serve -- [options]

Serves the calendar/events/v1 REST API over the embedded SQLite store.

Options:
  --port <n>        port to listen on (default 8080; 0 picks a free one)
  --host <addr>     address to bind (default 127.0.0.1)
  --data <file>     SQLite file (default ${DEFAULT_DATA}; created if missing)
  --site <url>      public site URL for links (default http://<host>:<port>)
  --api-base <url>  public API root (default the site URL)
  --timezone <tz>   site time zone (default UTC)
  --cache-mb <n>    memory for kept GET answers, MiB (default 64; 0 turns the response cache off)
  -h, --help        show this help

Examples:
  npm run serve
  npm run serve -- --port 9000 --data /var/lib/calsync/calendar.db
  npm run users -- add alice --role editor    # then use Basic auth alice:<app password>`;

export async function main(io: CliIO): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: io.argv,
      options: {
        port: { type: 'string', default: '8080' },
        host: { type: 'string', default: '127.0.0.1' },
        data: { type: 'string', default: DEFAULT_DATA },
        site: { type: 'string' },
        'api-base': { type: 'string' },
        timezone: { type: 'string' },
        'cache-mb': { type: 'string', default: '64' },
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
  const host = values.host as string;
  const dataFile = resolve(values.data as string);
  const store = openSqliteStore(dataFile);
  const siteUrl =
    (values.site as string | undefined) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp({
      store,
      siteUrl,
      apiBase: values['api-base'] as string | undefined,
      siteTimezone: values.timezone as string | undefined,
      responseCache: { maxEntries: cacheMb > 0 ? 2_000 : 0, maxBytes: cacheMb * 1024 * 1024 },
      uploadsDir: join(dirname(dataFile), 'uploads'),
      logger: { level: io.env.LOG_LEVEL ?? 'info' },
    });
  } catch (err) {
    store.close();
    io.stderr.write(`serve: ${(err as Error).message}\n`);
    return 2;
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

if (import.meta.main) await runMain(main);
