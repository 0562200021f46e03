/**
 * The README's round trip, as a user runs it: `npm run import` of the sample calendar into one store,
 * `npm run export -- --format csv --out x.csv` (three files), `npm run import -- x.csv` into a second
 * store: both stores hold the same events with the same fields, venues and organizers with theirs.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as exportMain } from '../../src/cli/export.ts';
import { main as importMain } from '../../src/cli/import.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { htmlToText } from '../../src/model/html.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { tempDir } from '../writer/setup.ts';
import { ROOT, runCli, SAMPLE_ICS } from './helpers.ts';

let dir: Awaited<ReturnType<typeof tempDir>>;
beforeAll(async () => {
  dir = await tempDir();
});
afterAll(() => dir.remove());

type Doc = Record<string, unknown>;
const text = (v: unknown) => htmlToText(String(v ?? ''));

/** Every published event with what the CSV carries, venues and organizers by name with their fields. */
async function contents(data: string) {
  const target = await openLocalTarget({ dataFile: data });
  try {
    const linked = (item: Doc | undefined, fields: string[]) =>
      item ? Object.fromEntries(fields.map((f) => [f, text(item[f])])) : null;
    const events: Doc[] = [];
    for await (const { body: e } of target.list('event')) {
      if (e.status !== 'publish') continue;
      events.push({
        title: text(e.title),
        description: text(e.description),
        start_date: e.start_date,
        end_date: e.end_date,
        timezone: e.timezone,
        all_day: e.all_day,
        featured: e.featured,
        sticky: e.sticky,
        hide_from_listings: e.hide_from_listings,
        show_map: e.show_map,
        show_map_link: e.show_map_link,
        cost: e.cost,
        website: e.website === e.url ? '' : e.website,
        venue: linked(Array.isArray(e.venue) ? undefined : (e.venue as Doc), [
          'venue',
          'address',
          'city',
          'country',
          'zip',
          'phone',
          'website',
        ]),
        organizers: ((e.organizer as Doc[]) ?? [])
          .map((o) => linked(o, ['organizer', 'email', 'phone', 'website']))
          .sort((a, b) => String(a?.organizer).localeCompare(String(b?.organizer))),
        categories: ((e.categories as Doc[]) ?? []).map((c) => text(c.name)).sort(),
        tags: ((e.tags as Doc[]) ?? []).map((c) => text(c.name)).sort(),
      });
    }
    return events.sort((a, b) => `${a.start_date} ${a.title}`.localeCompare(`${b.start_date} ${b.title}`));
  } finally {
    await target.close();
  }
}

/** Venues or organizers of a store by name, with their own fields. */
async function linked(data: string, kind: 'venue' | 'organizer', fields: string[]) {
  const target = await openLocalTarget({ dataFile: data });
  try {
    const items: Doc[] = [];
    for await (const { body } of target.list(kind))
      items.push(Object.fromEntries(fields.map((f) => [f, text(body[f])])));
    return items.sort((a, b) => String(a[kind]).localeCompare(String(b[kind])));
  } finally {
    await target.close();
  }
}

/** Title, start, description and excerpt of every published event, as the store holds them. */
async function storedTexts(data: string): Promise<string[][]> {
  const store = openSqliteStore(data);
  try {
    const visibility = { statuses: ['publish' as const], ownStatuses: [], ownerId: null };
    const { items } = await store.listEvents({ offset: 0, limit: 100_000, visibility, withHidden: true });
    return items.map((e) => [e.title, e.start_utc, e.description, e.excerpt]).sort();
  } finally {
    await store.close();
  }
}

const VENUE_FIELDS = ['venue', 'address', 'city', 'country', 'zip', 'phone', 'website'];
const ORGANIZER_FIELDS = ['organizer', 'email', 'phone', 'website'];

describe('npm run export --format csv, then npm run import of its files', () => {
  it('gives a second store the same events, venues and organizers as the first', async () => {
    const first = join(dir.dir, 'first.db');
    expect((await runCli(importMain, [SAMPLE_ICS, '--data', first, '--quiet'])).code).toBe(0);
    const out = join(dir.dir, 'calendar.csv');
    const exported = await runCli(exportMain, [
      '--data',
      first,
      '--format',
      'csv',
      '--out',
      out,
      '--past-days',
      '400',
    ]);
    expect(exported.code, exported.stderr).toBe(0);

    const second = join(dir.dir, 'second.db');
    const run = await runCli(importMain, [out, '--data', second]);
    expect(run.code, run.stdout).toBe(0);
    const [a, b] = [await contents(first), await contents(second)];
    expect(b.length).toBe(a.length);
    // Names with commas (`Okafor, Grace`) came back as one organizer each, with their e-mail.
    expect(a.some((e) => (e.organizers as Doc[]).some((o) => String(o?.organizer).includes(',')))).toBe(true);
    expect(b).toEqual(a);
    // The texts as stored, not only as their HTML shows them.
    expect(await storedTexts(second)).toEqual(await storedTexts(first));

    // The venues and organizers files alone import as venues and organizers (TEC's importer takes them so).
    const third = join(dir.dir, 'third.db');
    for (const part of ['venues', 'organizers']) {
      const alone = await runCli(importMain, [join(dir.dir, `calendar.${part}.csv`), '--data', third]);
      expect(alone.code, alone.stdout).toBe(0);
    }
    expect(await linked(third, 'venue', VENUE_FIELDS)).toEqual(await linked(first, 'venue', VENUE_FIELDS));
    expect(await linked(third, 'organizer', ORGANIZER_FIELDS)).toEqual(
      await linked(first, 'organizer', ORGANIZER_FIELDS),
    );
  });

  it('keeps a currency code column through import, export and import again', async () => {
    const source = join(ROOT, 'test/fixtures/csv/corpus/tec-import-currency.csv');
    const codes = async (data: string) => {
      const target = await openLocalTarget({ dataFile: data });
      try {
        const found: string[] = [];
        for await (const { body } of target.list('event')) {
          const details = body.cost_details as Doc;
          found.push(`${text(body.title)} ${body.cost} ${details.currency_code}`);
        }
        return found.sort();
      } finally {
        await target.close();
      }
    };
    const first = join(dir.dir, 'priced.db');
    expect((await runCli(importMain, [source, '--data', first, '--quiet'])).code).toBe(0);
    expect(await codes(first)).toEqual(['Jazz brunch $25 USD', 'Open day Free ', 'Wine fair 12€ EUR']);
    const out = join(dir.dir, 'priced.csv');
    const exported = await runCli(exportMain, ['--data', first, '--format', 'csv', '--out', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const second = join(dir.dir, 'priced-again.db');
    expect((await runCli(importMain, [out, '--data', second, '--quiet'])).code).toBe(0);
    expect(await codes(second)).toEqual(await codes(first));
  });

  it('--kind venues reads a list whose header does not say so', async () => {
    const file = join(dir.dir, 'places.csv');
    await writeFile(
      file,
      'Name,Address,City\nTown Hall,1 High St,Springfield\n"Hall, upstairs",2 Low St,Shelbyville\n',
    );
    const data = join(dir.dir, 'places.db');
    const run = await runCli(importMain, [file, '--data', data, '--kind', 'venues']);
    expect(run.code, run.stdout).toBe(0);
    expect(await linked(data, 'venue', ['venue', 'address', 'city'])).toEqual([
      { venue: 'Hall, upstairs', address: '2 Low St', city: 'Shelbyville' },
      { venue: 'Town Hall', address: '1 High St', city: 'Springfield' },
    ]);
  });

  it('kind: organizers in a pipeline file does what --kind does', async () => {
    const file = join(dir.dir, 'hosts.csv');
    await writeFile(file, 'Name,Email\n"Okafor, Grace",grace@example.org\nJo,jo@example.org\n');
    const data = join(dir.dir, 'hosts.db');
    const pipeline = join(dir.dir, 'hosts.yaml');
    await writeFile(
      pipeline,
      `name: hosts\nsource: { type: csv, path: ${JSON.stringify(file)}, kind: organizers }\ntarget: { data: ${JSON.stringify(data)} }\n`,
    );
    const run = await runCli(syncMain, [pipeline]);
    expect(run.code, run.stdout).toBe(0);
    expect(await linked(data, 'organizer', ['organizer', 'email'])).toEqual([
      { organizer: 'Jo', email: 'jo@example.org' },
      { organizer: 'Okafor, Grace', email: 'grace@example.org' },
    ]);
  });
});
