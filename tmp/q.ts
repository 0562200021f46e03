import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import { buildApp } from '../src/server/app.ts';
import { benchEditor } from '../bench/serve-process.ts';
import { eventBodies } from '../bench/event-bodies.ts';
const texts: string[] = [];
for (const proto of [pg.Client.prototype, pg.Pool.prototype]) {
  const orig = proto.query;
  proto.query = function (this: unknown, q: any, ...rest: unknown[]) { texts.push(typeof q === 'string' ? q : q.text); return orig.call(this, q, ...rest); } as any;
}
const c = await startPostgres();
try {
  const store = await openPostgresStore(c.url);
  const { authorization } = await benchEditor(store);
  const app = await buildApp({ store, siteUrl: 'http://x', logger: false } as any);
  const next = eventBodies(2027);
  for (let i = 0; i < 3; i++) {
    texts.length = 0;
    const res = await app.inject({ method: 'POST', url: '/calendar/events/v1/events', headers: { authorization, 'content-type': 'application/json' }, payload: next() as any });
    console.log(res.statusCode, texts.length, res.body.slice(0,200));
  }
  for (const t of texts) console.log('  ', t.slice(0, 130));
  await app.close();
} finally { await c.stop(); }
