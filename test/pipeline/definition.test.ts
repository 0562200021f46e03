// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} references of pipeline files are the subject here
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchemaFile, SCHEMA_FILE } from '../../src/cli/schema.ts';
import {
  checkPipeline,
  DefinitionError,
  type DefinitionProblem,
  loadPipeline,
  parsePipeline,
} from '../../src/pipeline/load.ts';

const FIXTURES = resolve(import.meta.dirname, '../fixtures/pipelines');
const ENV = { CALSYNC_USER: 'importer', CALSYNC_APP_PASSWORD: 'abcd efgh ijkl mnop' };

/** The problems `text` is refused with (fails the test if it is accepted or throws anything else). */
function problemsOf(
  text: string,
  env: Record<string, string> = {},
  file = 'pipelines/x.yaml',
): DefinitionProblem[] {
  try {
    parsePipeline(text, file, env);
  } catch (err) {
    if (err instanceof DefinitionError) return err.problems;
    throw err;
  }
  throw new Error('expected the definition to be refused');
}

const where = (problems: DefinitionProblem[]) =>
  problems.map((p) => `${p.line}:${p.column} ${p.path} ${p.code}`);

describe('loading a pipeline definition', () => {
  it('reads a full YAML file with every section, resolving paths against its folder', async () => {
    const file = join(FIXTURES, 'community.yaml');
    const pipeline = await loadPipeline(file, ENV);
    expect(pipeline.file).toBe(file);
    expect(pipeline.name).toBe('community');
    expect(pipeline.source).toEqual({
      type: 'ics',
      path: resolve(FIXTURES, '../samples/community-calendar.ics'),
    });
    expect(pipeline.target).toEqual({
      url: 'https://site.example/wp-json',
      data: undefined,
      namespace: 'tribe/events/v1',
      auth: { type: 'basic', username: 'importer', password: 'abcd efgh ijkl mnop' },
      rate: { concurrency: 2, requests_per_second: 5 },
      timeout_ms: 15000,
    });
    expect(pipeline.mapping).toEqual({
      timezone: 'Europe/Berlin',
      status: 'draft',
      categories: ['Community', 'Imported'],
      tags: [],
      featured: true,
      show_map: false,
      show_map_link: true,
    });
    expect(pipeline.window).toEqual({ past_days: 7, future_days: 180 });
    expect(pipeline.policies).toEqual({
      update: 'preserve-local-edits',
      delete: 'draft',
      max_delete_ratio: 0.1,
    });
    expect(pipeline.feeds).toEqual([
      {
        name: 'community',
        format: 'ics',
        path: resolve(FIXTURES, '../out/community.ics'),
        categories: ['Community'],
      },
    ]);
  });

  it('reads a JSON file, its $schema key included', async () => {
    const pipeline = await loadPipeline(join(FIXTURES, 'club.json'), {});
    expect(pipeline.source).toEqual({
      type: 'csv',
      path: join(FIXTURES, 'club.csv'),
      delimiter: ';',
      encoding: 'windows-1252',
      date_format: 'DD.MM.YYYY',
      columns: { title: 'Veranstaltung', start_date: 'Datum' },
    });
    expect(pipeline.mapping.timezone).toBe('Europe/Vienna');
  });

  it('reads JSON indented with tabs', () => {
    const text =
      '{\n\t"name": "tabs",\n\t"source": {\n\t\t"type": "ics",\n\t\t"url": "webcal://example.org/c.ics"\n\t}\n}\n';
    expect(parsePipeline(text, 'p.json', {}).source).toEqual({
      type: 'ics',
      url: 'webcal://example.org/c.ics',
    });
  });

  it('applies the defaults: local target, UTC, publish, 30/365 day window, overwrite, trash, 25% guard', () => {
    const pipeline = parsePipeline(
      'name: min\nsource: { type: csv, path: events.csv }\n',
      '/srv/p/min.yaml',
      {},
    );
    expect(pipeline.source).toMatchObject({ path: '/srv/p/events.csv', delimiter: 'auto', encoding: 'auto' });
    expect(pipeline.source).toMatchObject({ date_format: 'YYYY-MM-DD', columns: {} });
    expect(pipeline.target).toEqual({
      url: 'local',
      data: 'data/calendar.db',
      namespace: 'calendar/events/v1',
      rate: { concurrency: 64, requests_per_second: undefined },
      timeout_ms: 30000,
    });
    expect(pipeline.mapping).toEqual({
      timezone: 'UTC',
      status: 'publish',
      categories: [],
      tags: [],
      featured: false,
      show_map: true,
      show_map_link: true,
    });
    expect(pipeline.window).toEqual({ past_days: 30, future_days: 365 });
    expect(pipeline.policies).toEqual({ update: 'overwrite', delete: 'trash', max_delete_ratio: 0.25 });
    expect(pipeline.feeds).toEqual([]);
  });

  it('gives a remote target 4 requests at a time unless told otherwise', () => {
    const text =
      'name: r\nsource: { type: ics, path: a.ics }\ntarget: { url: "https://s.example/wp-json" }\n';
    expect(parsePipeline(text, 'r.yaml', {}).target.rate.concurrency).toBe(4);
  });

  it('returns a frozen pipeline, nested sections included', () => {
    const pipeline = parsePipeline('name: f\nsource: { type: ics, path: a.ics }\n', 'f.yaml', {});
    expect(Object.isFrozen(pipeline)).toBe(true);
    expect(Object.isFrozen(pipeline.mapping.categories)).toBe(true);
    expect(() => {
      (pipeline.policies as { delete: string }).delete = 'delete';
    }).toThrow(TypeError);
  });
});

describe('refusing an invalid definition', () => {
  it('rejects an unknown key and points at its line', () => {
    const problems = problemsOf('name: a\nsource: { type: ics, path: a.ics }\nwindow:\n  past_dayz: 3\n');
    expect(where(problems)).toEqual(['4:3 window.past_dayz unknown_key']);
  });

  it('reports every problem at once, in file order, with paths, lines and columns', async () => {
    const file = join(FIXTURES, 'broken.yaml');
    const error = await loadPipeline(file, {}).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DefinitionError);
    const { problems, message } = error as DefinitionError;
    expect(where(problems)).toEqual([
      '1:7 name invalid',
      '4:9 source.path invalid',
      '5:3 source.delimiter unknown_key',
      '10:12 target.auth.token literal_secret',
      '11:3 target.concurency unknown_key',
      '13:11 mapping.status invalid',
      '15:14 window.past_days invalid',
    ]);
    expect(message.split('\n')).toHaveLength(7);
    expect(message).toContain(`${file}:4:9: source.path: expected string, got number`);
    expect(message).toContain(
      `${file}:13:11: mapping.status: expected "publish" | "draft" | "pending" | "private", got "live"`,
    );
  });

  it('refuses csv options on an ics source, naming the option', () => {
    const problems = problemsOf('name: a\nsource:\n  type: ics\n  path: a.ics\n  date_format: DD/MM/YYYY\n');
    expect(where(problems)).toEqual(['5:3 source.date_format unknown_key']);
    expect(problems[0].message).toContain('csv option');
  });

  it('needs exactly one of source.path and source.url', () => {
    expect(where(problemsOf('name: a\nsource:\n  type: ics\n'))).toEqual(['3:3 source invalid']);
    const both = problemsOf('name: a\nsource: { type: ics, path: a.ics, url: "https://e.org/a.ics" }\n');
    expect(both[0].message).toContain('got both');
  });

  it('takes a timeout and a size limit for a URL source, and refuses them on a file', () => {
    const pipeline = parsePipeline(
      'name: a\nsource: { type: ics, url: "https://e.org/a.ics", timeout_ms: 5000, max_bytes: 1000000 }\n',
      'pipelines/x.yaml',
      {},
    );
    expect(pipeline.source).toMatchObject({
      url: 'https://e.org/a.ics',
      timeout_ms: 5000,
      max_bytes: 1000000,
    });
    const onFile = problemsOf('name: a\nsource: { type: ics, path: a.ics, timeout_ms: 5000 }\n');
    expect(onFile).toMatchObject([{ path: 'source.timeout_ms', code: 'invalid' }]);
    expect(onFile[0].message).toContain('expected no timeout_ms on a file source');
  });

  it('names the source types when the type is unknown', () => {
    const [problem] = problemsOf('name: a\nsource: { type: xlsx, path: a.xlsx }\n');
    expect(problem).toMatchObject({ path: 'source.type', line: 2, code: 'invalid' });
    expect(problem.message).toBe('expected "ics" | "csv", got "xlsx"');
  });

  it('refuses a time zone that does not exist', () => {
    const [problem] = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\nmapping: { timezone: Europe/Gotham }\n',
    );
    expect(problem).toMatchObject({ path: 'mapping.timezone', line: 3, code: 'invalid' });
  });

  it('reads a schedule for npm run schedule, and points at a cron expression or zone it cannot use', () => {
    const ok = parsePipeline(
      'name: a\nsource: { type: ics, path: a.ics }\nschedule: { cron: "15 3 * * *", timezone: Europe/London }\n',
      'pipelines/a.yaml',
      {},
    );
    expect(ok.schedule).toEqual({ cron: '15 3 * * *', timezone: 'Europe/London' });
    const utc = parsePipeline(
      'name: a\nsource: { type: ics, path: a.ics }\nschedule: { cron: "0 * * * *" }\n',
      'a.yaml',
      {},
    );
    expect(utc.schedule?.timezone).toBe('UTC');
    const [cron] = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\nschedule:\n  cron: "61 3 * * *"\n',
    );
    expect(cron).toMatchObject({ path: 'schedule.cron', line: 4, code: 'invalid' });
    expect(cron.message).toMatch(/^expected a cron expression such as "0 3 \* \* \*"/);
    const [zone] = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\nschedule: { cron: "0 3 * * *", timezone: Mars/Olympus }\n',
    );
    expect(zone).toMatchObject({ path: 'schedule.timezone', line: 3, code: 'invalid' });
  });

  it('refuses auth and a data file where they mean nothing', () => {
    const local = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\ntarget:\n  auth: { type: bearer, token: "${T}" }\n',
      { T: 'x' },
    );
    expect(where(local)).toEqual(['4:9 target.auth invalid']);
    const remote = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\ntarget:\n  url: https://s.example/wp-json\n  data: x.db\n',
    );
    expect(where(remote)).toEqual(['5:9 target.data invalid']);
  });

  it('points at a CSV column mapping whose field name is not canonical, and gives one message per bad URL', () => {
    const problems = problemsOf(
      'name: a\nsource:\n  type: csv\n  url: ftp://e.org/a.csv\n  columns:\n    Title: Event Name\n',
    );
    expect(where(problems)).toEqual(['4:8 source.url invalid', '6:5 source.columns.Title invalid']);
    expect(problems[1].message).toBe('expected a canonical field name such as start_date, got "Title"');
  });

  it('reports duplicate feed names', () => {
    const problems = problemsOf(
      'name: a\nsource: { type: ics, path: a.ics }\nfeeds:\n  - name: all\n  - name: all\n',
    );
    expect(where(problems)).toEqual(['5:11 feeds[1].name invalid']);
  });

  it('reports YAML syntax errors with their line and column', () => {
    const problems = problemsOf('name: a\nsource: { type: ics, path: a.ics\nwindow: {}\n');
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.code === 'yaml_syntax' && p.line !== undefined)).toBe(true);
    expect(where(problemsOf('name: a\nname: b\nsource: { type: ics, path: a.ics }\n'))).toEqual([
      '2:1  yaml_syntax',
    ]);
  });

  it('refuses an empty file and a missing file', async () => {
    expect(where(problemsOf(''))).toEqual(['1:1  invalid']);
    const error = await loadPipeline(join(FIXTURES, 'nope.yaml'), {}).catch((err: unknown) => err);
    expect((error as DefinitionError).problems).toMatchObject([{ code: 'unreadable' }]);
  });
});

describe('environment variables', () => {
  const REMOTE = (auth: string) =>
    `name: a\nsource: { type: ics, url: "\${FEED_URL}" }\ntarget:\n  url: https://s.example/wp-json\n  auth:\n${auth}`;

  it('substitutes ${VAR} references in any string', () => {
    const text = `${REMOTE('    type: bearer\n    token: ${TOKEN}\n')}mapping: { categories: ["\${CITY} events"] }\n`;
    const pipeline = parsePipeline(text, 'a.yaml', {
      FEED_URL: 'https://e.org/c.ics',
      TOKEN: 't0k',
      CITY: 'Graz',
    });
    expect(pipeline.source.url).toBe('https://e.org/c.ics');
    expect(pipeline.target.auth).toEqual({ type: 'bearer', token: 't0k' });
    expect(pipeline.mapping.categories).toEqual(['Graz events']);
  });

  it('keeps $${VAR} as a literal ${VAR}', () => {
    const text = 'name: a\nsource: { type: ics, path: a.ics }\nmapping: { tags: ["$${HOME}"] }\n';
    expect(parsePipeline(text, 'a.yaml', { HOME: '/root' }).mapping.tags).toEqual(['${HOME}']);
  });

  it('reports each unset variable at the place it is used', () => {
    const problems = problemsOf(
      REMOTE('    type: basic\n    username: ${USER_X}\n    password: ${PASS_X}\n'),
    );
    expect(where(problems)).toEqual([
      '2:27 source.url missing_env',
      '7:15 target.auth.username missing_env',
      '8:15 target.auth.password missing_env',
    ]);
    expect(problems[0].message).toContain('FEED_URL');
  });

  it('leaves unset variables alone when asked to check the file only', () => {
    const text = REMOTE('    type: basic\n    username: ${USER_X}\n    password: ${PASS_X}\n');
    expect(checkPipeline(text, 'a.yaml', {}, { allowMissingEnv: true })).toEqual({ problems: [], name: 'a' });
    const broken = `${text}  timeout_ms: soon\n`;
    const { problems } = checkPipeline(broken, 'a.yaml', {}, { allowMissingEnv: true });
    expect(where(problems)).toEqual(['9:15 target.timeout_ms invalid']);
  });

  it('refuses a secret written in the file, without repeating it', () => {
    const problems = problemsOf(
      REMOTE(
        '    type: oauth2\n    token_url: https://s.example/token\n    client_id: c\n    client_secret: hunter2\n',
      ),
      {
        FEED_URL: 'https://e.org/c.ics',
      },
    );
    expect(where(problems)).toEqual(['9:20 target.auth.client_secret literal_secret']);
    expect(problems[0].message).toContain('secrets must be ${ENV} references');
    expect(problems[0].message).not.toContain('hunter2');
  });

  it('refuses a secret that is only partly a reference', () => {
    const problems = problemsOf(REMOTE('    type: bearer\n    token: "Bearer ${TOKEN}"\n'), {
      FEED_URL: 'https://e.org/c.ics',
      TOKEN: 't',
    });
    expect(where(problems)).toEqual(['7:12 target.auth.token literal_secret']);
  });
});

describe('the JSON Schema for editors', () => {
  it(`is up to date in ${SCHEMA_FILE}`, async () => {
    const root = resolve(import.meta.dirname, '../..');
    const committed = await readFile(join(root, SCHEMA_FILE), 'utf8').catch(() => '');
    expect(committed, `${SCHEMA_FILE} is out of date: run npm run schema`).toBe(renderSchemaFile());
  });

  it('makes keys with defaults optional and secrets references', () => {
    const schema = JSON.parse(renderSchemaFile());
    expect(schema.required).toEqual(['name', 'source']);
    expect(schema.additionalProperties).toBe(false);
    const basic = schema.properties.target.properties.auth.oneOf[0];
    expect(new RegExp(basic.properties.password.pattern).test('${CALSYNC_APP_PASSWORD}')).toBe(true);
    expect(new RegExp(basic.properties.password.pattern).test('hunter2')).toBe(false);
    expect(dirname(SCHEMA_FILE)).toBe('pipelines');
  });
});
