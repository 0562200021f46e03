import { startPostgres } from '../test/helpers/postgres.ts';
import { openPostgresStore } from '../src/store/postgres.ts';
import { eventOn } from '../test/store/contract/fixtures.ts';
const c = await startPostgres();
try {
  const s = await openPostgresStore(c.url);
  const q = (s as any);
  let n = 0;
  const db = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(s), 'url');
  for (let i = 0; i < 50; i++) await s.insertEvent(eventOn(10));
  let t = performance.now(); let cpu = process.cpuUsage();
  for (let i = 0; i < 300; i++) await s.insertEvent(eventOn(10 + (i % 10)));
  console.log('insertEvent ms', ((performance.now() - t) / 300).toFixed(3), 'cpu µs', (process.cpuUsage(cpu).user / 300).toFixed(0));
  t = performance.now();
  for (let i = 0; i < 300; i++) await s.getUser(1);
  console.log('getUser ms', ((performance.now() - t) / 300).toFixed(3));
  t = performance.now();
  for (let i = 0; i < 300; i++) await s.transaction(async () => { await s.getUser(1); });
  console.log('empty tx ms', ((performance.now() - t) / 300).toFixed(3));
  await s.close();
} finally { await c.stop(); }
