// biome-ignore-all lint/suspicious/noTemplateCurlyInString: pipeline files with ${VAR} references are written here
/**
 * `npm run sync -- pipelines/*.yaml` with several pipelines writing to one remote host (our real server on
 * a loopback port), run for real as a child process: together they keep to the host's rate limit (one
 * queue per host, src/writer/host-queues.ts), a pipeline that fails (a wrong application password) does not
 * stop the others, the exit code and the JSON report say which failed, one pipeline authenticates with
 * OAuth 2 client credentials, and every log line carries its pipeline's run id.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { killChildren, spawnChild } from '../helpers/children.ts';
import { addOAuthClient, type LoopbackServer, startServer, tempDir } from '../writer/setup.ts';
import { NOW, ROOT, readReport, writesOf } from './helpers.ts';

/** The rate each pipeline file asks for: shared, the four together start at most this many a second. */
const RPS = 10;
const EVENTS = 10;

let tmp: Awaited<ReturnType<typeof tempDir>>;
let server: LoopbackServer;
/** When each API request reached the server (the token endpoint apart: it is not an API request). */
let arrivals: number[];
let env: Record<string, string>;

function calendar(prefix: string): string {
  const events = Array.from({ length: EVENTS }, (_, i) => {
    const day = String(i + 1).padStart(2, '0');
    return [
      'BEGIN:VEVENT',
      `UID:${prefix}-${i}@many.test`,
      'DTSTAMP:20261101T000000Z',
      `DTSTART;TZID=Europe/London:202612${day}T190000`,
      `DTEND;TZID=Europe/London:202612${day}T210000`,
      `SUMMARY:${prefix} evening ${i}`,
      'END:VEVENT',
    ];
  });
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//calsync//many//EN',
    ...events.flat(),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

/** A pipeline file writing `name`.ics to the server with `auth` (YAML lines under `auth:`). */
async function pipeline(name: string, auth: string[]): Promise<string> {
  await writeFile(join(tmp.dir, `${name}.ics`), calendar(name));
  const file = join(tmp.dir, `${name}.yaml`);
  const yaml = [
    `name: ${name}`,
    'source:',
    '  type: ics',
    `  path: ${name}.ics`,
    'target:',
    '  url: ${SITE_URL}',
    '  namespace: calendar/events/v1',
    '  auth:',
    ...auth.map((l) => `    ${l}`),
    '  rate:',
    `    requests_per_second: ${RPS}`,
    'mapping:',
    '  timezone: Europe/London',
    '',
  ].join('\n');
  await writeFile(file, yaml);
  return file;
}

const BASIC = ['type: basic', 'username: ${SYNC_USER}', 'password: ${SYNC_PASSWORD}'];
let files: string[];

beforeAll(async () => {
  tmp = await tempDir();
  server = await startServer(join(tmp.dir, 'site.db'));
  arrivals = [];
  server.app.server.on('request', (req) => {
    if (!req.url?.startsWith('/oauth/')) arrivals.push(Date.now());
  });
  const client = await addOAuthClient(server);
  env = {
    SITE_URL: server.url,
    SYNC_USER: server.username,
    SYNC_PASSWORD: server.password,
    WRONG_PASSWORD: 'abcd efgh ijkl mnop qrst uvwx',
    CLIENT_ID: client.clientId,
    CLIENT_SECRET: client.secret,
  };
  files = [
    await pipeline('alpha', BASIC),
    await pipeline('bravo', [
      'type: oauth2',
      'token_url: ${SITE_URL}/oauth/token',
      'client_id: ${CLIENT_ID}',
      'client_secret: ${CLIENT_SECRET}',
      'scope: read write',
    ]),
    await pipeline('charlie', ['type: basic', 'username: ${SYNC_USER}', 'password: ${WRONG_PASSWORD}']),
    await pipeline('delta', BASIC),
  ];
});
afterEach(killChildren);
afterAll(async () => {
  await server.close();
  await tmp.remove();
});

/** `npm run sync -- …` as a real process in the temp dir (where remote targets keep their sync state). */
function sync(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnChild(process.execPath, [join(ROOT, 'src', 'cli', 'sync.ts'), ...args], {
    cwd: tmp.dir,
    env: { ...process.env, CALSYNC_NOW: NOW, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })));
}

interface Entry {
  file: string;
  pipeline?: string;
  outcome: string;
  error?: string;
  runId?: string;
  counts?: { event: Record<string, number> };
  failures?: { status?: number; code: string }[];
  requests?: Record<string, number>;
}

describe('npm run sync -- pipelines/*.yaml with four pipelines writing to one host', () => {
  let first: Awaited<ReturnType<typeof sync>>;
  let report: Entry[];

  beforeAll(async () => {
    first = await sync([...files, '--report', join(tmp.dir, 'first.json')]);
    report = await readReport<Entry[]>(join(tmp.dir, 'first.json'));
  }, 60_000);

  it('runs the others when one fails, and the exit code and the report say which failed', () => {
    expect(first.code, first.stderr).toBe(1);
    expect(report.map((e) => [e.pipeline, e.outcome])).toEqual([
      ['alpha', 'ok'],
      ['bravo', 'ok'],
      ['charlie', 'failed'],
      ['delta', 'ok'],
    ]);
    expect(report.map((e) => e.file)).toEqual(files);
    for (const ok of [report[0], report[1], report[3]]) expect(ok.counts?.event.created).toBe(EVENTS);
    // The wrong password: refused by the server on its first request, said with its code.
    expect(JSON.stringify(report[2])).toContain('incorrect_password');
    expect(first.stderr).toMatch(/1 of 4 pipelines failed: charlie \(.*charlie\.yaml\)/);
    // One summary line per pipeline that ran to the end.
    for (const name of ['alpha', 'bravo', 'delta'])
      expect(first.stdout).toMatch(
        new RegExp(`^${name}: ${EVENTS} events \\(${EVENTS} created\\), 0 failed`, 'm'),
      );
  });

  it('keeps the four pipelines together to the rate one of them asks for', () => {
    const n = arrivals.length;
    expect(n).toBeGreaterThanOrEqual(3 * EVENTS);
    // RPS per second in all: the last of n requests cannot start before ⌈n/RPS⌉−1 whole seconds have passed.
    // (Four separate queues would have taken a quarter of that.)
    const span = arrivals[n - 1] - arrivals[0];
    expect(span).toBeGreaterThanOrEqual((Math.ceil(n / RPS) - 1) * 1000 - 50);
  });

  it('logs JSON lines that each carry the run id of their pipeline', () => {
    const lines = first.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(line.run, JSON.stringify(line)).toEqual(expect.any(String));
    const byPipeline = new Map<string, Set<string>>();
    for (const l of lines) byPipeline.set(l.pipeline, (byPipeline.get(l.pipeline) ?? new Set()).add(l.run));
    expect([...byPipeline.keys()].sort()).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    for (const [name, runs] of byPipeline) {
      expect(runs.size, name).toBe(1);
      const entry = report.find((e) => e.pipeline === name);
      if (entry?.runId) expect([...runs][0]).toBe(entry.runId);
    }
  });

  it('a second run writes nothing for the pipelines that succeeded and still reports the failing one', async () => {
    const again = await sync([...files, '--quiet', '--report', join(tmp.dir, 'second.json')]);
    expect(again.code).toBe(1);
    const second = await readReport<Entry[]>(join(tmp.dir, 'second.json'));
    expect(second.map((e) => e.outcome)).toEqual(['ok', 'ok', 'failed', 'ok']);
    for (const e of [second[0], second[1], second[3]]) {
      expect(writesOf({ requests: e.requests ?? {} })).toBe(0);
      expect(e.counts?.event.unchanged).toBe(EVENTS);
    }
  }, 60_000);
});
