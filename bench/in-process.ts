/**
 * `node bench/in-process.ts [--creates 3000] [--rounds 3]`: the server's CPU per event create, the same
 * app and requests sent through Fastify (`app.inject`, the local target's path before issue 17) and
 * through the in-process caller (`inProcessApi`, src/server/in-process.ts), alternated, each round on a
 * fresh SQLite file; 10 requests in flight, each event with a venue, an organizer, 2 categories and 3 tags
 * by id, as the importer sends them. Prints one JSON line per run: CPU ms per create (this process, all
 * threads), wall ms per create, and the load.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/server/app.ts';
import { inProcessApi } from '../src/server/in-process.ts';
import { openSqliteStore } from '../src/store/sqlite.ts';

const { values } = parseArgs({
  options: { creates: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '3' } },
});
const CREATES = Number(values.creates);
const NS = '/calendar/events/v1';
const HEADERS = { authorization: 'Local calsync', 'content-type': 'application/json' };
const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-in-process-'));

async function run(mode: 'inject' | 'in-process', round: number) {
  const store = openSqliteStore(join(dir, `${mode}-${round}.db`));
  const user = await store.insertUser({
    login: 'calsync',
    email: '',
    role: 'administrator',
    display_name: 'calsync',
  });
  // As the local target builds it (src/embedded/local-target.ts).
  const options = {
    store,
    responseCache: { maxEntries: 0, maxBytes: 0 },
    renderCacheBytes: 4_000_000,
    renderCacheEvents: false,
    schemes: { local: async () => user },
  };
  const api = await inProcessApi(options);
  const app = await buildApp(options, api.core);
  const post = async (path: string, body: unknown): Promise<{ id: number }> => {
    const req = {
      method: 'POST' as const,
      url: `${NS}${path}`,
      headers: HEADERS,
      payload: JSON.stringify(body),
    };
    const text =
      mode === 'in-process' ? (await api.call(req))!.body.toString() : (await app.inject(req)).body;
    const doc = JSON.parse(text);
    if (typeof doc.id !== 'number') throw new Error(`${path}: ${text}`);
    return doc;
  };
  const ids = async (n: number, path: string, body: (i: number) => unknown) => {
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push((await post(path, body(i))).id);
    return out;
  };
  const venues = await ids(50, '/venues', (i) => ({
    venue: `Hall ${i}`,
    city: 'Oslo',
    address: `Street ${i}`,
  }));
  const organizers = await ids(30, '/organizers', (i) => ({ organizer: `Organizer ${i}` }));
  const categories = await ids(10, '/categories', (i) => ({ name: `Category ${i}` }));
  const tags = await ids(20, '/tags', (i) => ({ name: `Tag ${i}` }));

  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < CREATES) {
        const i = next++;
        await post('/events', {
          title: `Event ${i}`,
          description: `About event ${i}: a line of plain text.`,
          start_date: '2027-03-01 19:00:00',
          end_date: '2027-03-01 22:00:00',
          timezone: 'Europe/Oslo',
          venue: venues[i % venues.length],
          organizer: [organizers[i % organizers.length]],
          categories: [categories[i % 10], categories[(i + 3) % 10]],
          tags: [tags[i % 20], tags[(i + 1) % 20], tags[(i + 7) % 20]],
          cost: '10',
          slug: `event-${i}`,
        });
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - started;
  await app.close();
  process.stdout.write(
    `${JSON.stringify({
      mode,
      round,
      cpu_ms_per_create: Number(((cpu.user + cpu.system) / 1000 / CREATES).toFixed(3)),
      wall_ms_per_create: Number((wallMs / CREATES).toFixed(3)),
      load: Number(loadavg()[0].toFixed(2)),
    })}\n`,
  );
}

try {
  for (let round = 1; round <= Number(values.rounds); round++) {
    await run('inject', round);
    await run('in-process', round);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
