/**
 * `npm run sync` and `npm run plan` on pipeline files: the README's examples (pipelines/community-*.yaml)
 * copied into a temp dir with their source made absolute and their local target's data file in the temp
 * dir. Several pipelines run in one call, an invalid file does not stop the valid ones, the plan writes
 * nothing and a second sync writes nothing.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { main as planMain } from '../../src/cli/plan.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { main as validateMain } from '../../src/cli/validate.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { tempDir } from '../writer/setup.ts';
import { ROOT, readReport, runCli, snapshotOf, writesOf } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
let data: string;
let ics: string;
let csv: string;

/** An example pipeline of the repository, written into the temp dir to read the samples and write there. */
async function copyExample(name: string): Promise<string> {
  const doc = parseDocument(await readFile(join(ROOT, 'pipelines', `${name}.yaml`), 'utf8'));
  const source = String(doc.getIn(['source', 'path']));
  doc.setIn(['source', 'path'], join(ROOT, 'pipelines', source));
  doc.setIn(['target', 'data'], data);
  // Feeds written by a sync go to the temp dir too.
  const feeds = doc.get('feeds') as { items?: unknown[] } | undefined;
  (feeds?.items ?? []).forEach((_, i) => {
    if (doc.hasIn(['feeds', i, 'path']))
      doc.setIn(['feeds', i, 'path'], join(dir.dir, 'feeds', `${name}-${i}.ics`));
  });
  const file = join(dir.dir, `${name}.yaml`);
  await writeFile(file, doc.toString());
  return file;
}

beforeAll(async () => {
  dir = await tempDir();
  data = join(dir.dir, 'calendar.db');
  ics = await copyExample('community-ics');
  csv = await copyExample('community-csv');
});
afterAll(() => dir.remove());

const reportFile = (name: string) => join(dir.dir, name);

describe('the example pipelines of the README', () => {
  const examples = ['community-ics', 'community-csv', 'wordpress-example'].map((name) =>
    join(ROOT, 'pipelines', name === 'wordpress-example' ? 'remote' : '', `${name}.yaml`),
  );

  it('all pass npm run validate, the WordPress one once its variables are set', async () => {
    const env = {
      CALSYNC_SITE_URL: 'https://site.example/wp-json',
      CALSYNC_USER: 'importer',
      CALSYNC_APP_PASSWORD: 'abcd efgh ijkl mnop qrst uvwx',
    };
    const run = await runCli(validateMain, examples, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(3);
  });

  it('the WordPress example is invalid without its variables: its secrets are not in the file', async () => {
    const run = await runCli(validateMain, [examples[2]]);
    expect(run.code).toBe(2);
    for (const name of ['CALSYNC_SITE_URL', 'CALSYNC_USER', 'CALSYNC_APP_PASSWORD'])
      expect(run.stderr).toContain(`expected environment variable ${name} to be set`);
  });
});

describe('npm run plan / npm run sync with the example pipelines', () => {
  it('plan prints what each pipeline would create and writes nothing', async () => {
    const run = await runCli(planMain, [ics, csv]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`community-ics: plan against local ${data} (dry run, nothing written)`);
    expect(run.stdout).toContain(`community-csv: plan against local ${data} (dry run, nothing written)`);
    const eventRows = [...run.stdout.matchAll(/^events\s+(\d+)\s+0\s+0\s+0\s+\d+\s+0$/gm)];
    expect(eventRows).toHaveLength(2);
    for (const [, create] of eventRows) expect(Number(create)).toBeGreaterThan(50);
    expect(run.stdout).toMatch(/^create {4}event ".+" \(.*community-calendar\.ics:\d+\)/m);
    expect(existsSync(data)).toBe(false);
  });

  it('sync runs both pipelines in one call, exits 0 and reports both', async () => {
    const run = await runCli(syncMain, [ics, csv, '--report', reportFile('first.json')]);
    expect(run.code).toBe(0);
    const reports = await readReport<RunReport[]>(reportFile('first.json'));
    expect(reports.map((r) => [r.pipeline, r.outcome, r.dryRun])).toEqual([
      ['community-ics', 'ok', false],
      ['community-csv', 'ok', false],
    ]);
    const created = reports.map((r) => r.counts.event.created);
    for (const n of created) expect(n).toBeGreaterThan(50);
    // Both wrote into the one data file, each its own events.
    expect((await snapshotOf(data)).events).toHaveLength(created[0] + created[1]);
    expect(run.stdout).toMatch(/^community-ics: \d+ events \(\d+ created.*\), 0 failed → local /m);
    expect(run.stdout).toMatch(/^community-csv: \d+ events \(\d+ created\), 0 failed → local /m);
  });

  it('a second sync of unchanged sources writes nothing', async () => {
    const first = await readReport<RunReport[]>(reportFile('first.json'));
    const run = await runCli(syncMain, [ics, csv, '--quiet', '--report', reportFile('second.json')]);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(2); // one summary line per pipeline
    const second = await readReport<RunReport[]>(reportFile('second.json'));
    expect(second.map(writesOf)).toEqual([0, 0]);
    expect(second.map((r) => r.counts.event.unchanged)).toEqual(first.map((r) => r.counts.event.created));
  });

  it('an invalid pipeline file is reported with file:line and exit code 2, and the valid one still runs', async () => {
    const broken = join(dir.dir, 'broken.yaml');
    await writeFile(
      broken,
      [
        'name: broken',
        'source:',
        '  type: ics',
        '  path: nowhere.ics',
        'mapping:',
        '  timezone: Mars/Olympus',
        'policies:',
        '  delete: shred',
        '',
      ].join('\n'),
    );
    const run = await runCli(syncMain, [broken, csv, '--report', reportFile('third.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`${broken}:6:\\d+: mapping\\.timezone: expected an IANA time zone`),
    );
    expect(run.stderr).toMatch(
      new RegExp(`${broken}:8:\\d+: policies\\.delete: expected "keep" \\| "draft"`),
    );
    const reports = await readReport<RunReport[]>(reportFile('third.json'));
    // The invalid file has an entry saying why it did not run.
    expect(reports.map((r) => [r.pipeline, r.outcome])).toEqual([
      [undefined, 'failed'],
      ['community-csv', 'ok'],
    ]);
    expect(reports[0]).toMatchObject({ file: broken, error: expect.stringContaining('mapping.timezone') });
    expect(writesOf(reports[1])).toBe(0);
  });
});
