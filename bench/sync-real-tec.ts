/**
 * `npm run -s bench:sync -- --tec [--events 120]`: what a small WordPress host takes. The real TEC 6.2.6 site
 * of the kit (test/real-tec/kit.ts: the running one `TEC_URL` describes, else started on a free loopback
 * port) is reset, then a calendar of `--events` one-off events (20 venues, 10 organizers, 8 categories) is
 * imported through the real pipeline at concurrency 1, 2, 4 and 8, a fresh site each time. Every request's
 * time is taken at the transport (from sending to the whole answer read), so the latencies are the site's
 * plus loopback. Printed as one JSON document on stdout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { fileRunSpec } from '../src/pipeline/file-run-spec.ts';
import { runPipeline } from '../src/pipeline/run.ts';
import { createHttpTransport, createTarget, type Transport } from '../src/writer/index.ts';
import { kitFolder, resetSite, runningSite, startSite, stopSite } from '../test/real-tec/kit.ts';
import { prng } from './prng.ts';

const CONCURRENCY = [1, 2, 4, 8] as const;
const NOW = new Date('2027-01-01T00:00:00Z');

export async function benchRealTec(events: number): Promise<void> {
  const kit = kitFolder();
  if (!kit) throw new Error('no TEC kit: set TEC_KIT to a tec-6.2.6 kit folder');
  const running = runningSite(kit);
  const site = running ?? (await startSite(kit));
  const dir = mkdtempSync(join(tmpdir(), 'calsync-bench-tec-'));
  try {
    const file = join(dir, 'club.ics');
    writeFileSync(file, calendar(events));
    const user = site.users.editor;
    const runs = [];
    for (const concurrency of CONCURRENCY) {
      await resetSite(site);
      const timings: { method: string; ms: number }[] = [];
      const timed = (inner: Transport): Transport => ({
        label: inner.label,
        close: () => inner.close(),
        async send(req) {
          const started = performance.now();
          try {
            return await inner.send(req);
          } finally {
            timings.push({ method: req.method, ms: performance.now() - started });
          }
        },
      });
      process.stderr.write(`concurrency ${concurrency}: ${events} events…\n`);
      const spec = fileRunSpec({
        name: 'bench-tec',
        source: { type: 'ics', path: file },
        stateFile: join(dir, `state-${concurrency}.db`),
        targetLabel: site.url,
      });
      const started = performance.now();
      const { report } = await runPipeline(spec, {
        now: NOW,
        logger: pino({ level: 'silent' }),
        openTarget: async () =>
          createTarget(
            timed(
              createHttpTransport({
                url: site.url,
                auth: { type: 'basic', username: user.username, password: user.password },
              }),
            ),
            { namespace: site.namespace, label: site.url, concurrency },
          ),
      });
      const seconds = (performance.now() - started) / 1000;
      const writes = timings.filter((t) => t.method === 'POST').map((t) => t.ms);
      runs.push({
        concurrency,
        created: report.counts.event.created,
        failed: Object.values(report.counts).reduce((n, c) => n + c.failed, 0),
        wall_s: round(seconds),
        events_per_s: round(report.counts.event.created / seconds),
        requests: timings.length,
        write_ms: { p50: round(quantile(writes, 0.5)), p99: round(quantile(writes, 0.99)) },
        all_ms: {
          p50: round(
            quantile(
              timings.map((t) => t.ms),
              0.5,
            ),
          ),
          p99: round(
            quantile(
              timings.map((t) => t.ms),
              0.99,
            ),
          ),
        },
      });
    }
    await resetSite(site);
    const figures = {
      machine: { cpus: cpus().length, load: loadavg()[0].toFixed(2), node: process.version },
      site: 'WordPress 6.1.9 + The Events Calendar 6.2.6 (nginx, php-fpm 4 workers, MariaDB) on loopback',
      events,
      runs,
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (!running) await stopSite(site);
  }
}

function calendar(n: number): string {
  const random = prng(20_261_125);
  const pick = (k: number) => Math.floor(random() * k);
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//calsync//bench real TEC//EN'];
  for (let i = 0; i < n; i++) {
    const start = new Date(NOW.getTime() + (1 + pick(300)) * 86_400_000 + pick(12) * 3_600_000);
    const stamp = (d: Date) =>
      d
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d+Z$/, 'Z');
    const venue = pick(20);
    lines.push(
      'BEGIN:VEVENT',
      `UID:tec-bench-${i}@calsync`,
      'DTSTAMP:20261201T000000Z',
      `DTSTART:${stamp(start)}`,
      `DTEND:${stamp(new Date(start.getTime() + 2 * 3_600_000))}`,
      `SUMMARY:Club evening ${i}`,
      `DESCRIPTION:What happens at evening ${i}\\, with details.`,
      `LOCATION:Hall ${venue}\\, ${venue} High Street\\, Springfield`,
      `ORGANIZER;CN=Society ${pick(10)}:mailto:society@example.org`,
      `CATEGORIES:Category ${pick(8)}`,
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

const round = (n: number) => Number(n.toFixed(1));
