/**
 * fetchSource against a real loopback HTTP server: conditional GETs, redirects, compression, and every way a
 * feed fails — each a SourceFetchError with its code, URL and status, never a shorter calendar.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchSource, readBody, SourceFetchError, sourceUrl } from '../../../src/sources/remote/index.ts';
import {
  type FeedServer,
  feed,
  redirect,
  stalled,
  startFeedServer,
  status,
  truncated,
} from './feed-server.ts';

const ICS = [
  'BEGIN:VCALENDAR',
  'VERSION:2.0',
  'PRODID:-//test//EN',
  ...Array.from({ length: 40 }, (_, i) => [
    'BEGIN:VEVENT',
    `UID:e${i}@test`,
    'DTSTAMP:20260101T000000Z',
    `DTSTART:202701${String((i % 28) + 1).padStart(2, '0')}T180000Z`,
    `SUMMARY:Event ${i}`,
    'END:VEVENT',
  ]).flat(),
  'END:VCALENDAR',
  '',
].join('\r\n');

let server: FeedServer;
beforeAll(async () => {
  server = await startFeedServer({
    '/etag.ics': feed(() => ICS, { etag: '"v1"' }),
    '/modified.ics': feed(() => ICS, { lastModified: 'Sat, 21 Nov 2026 10:00:00 GMT' }),
    '/gzip.ics': feed(() => ICS, { encoding: 'gzip' }),
    '/br.ics': feed(() => ICS, { encoding: 'br' }),
    '/hop1': redirect('/hop2', 301),
    '/hop2': redirect('/etag.ics', 307),
    '/loop': redirect('/loop'),
    '/gone.ics': status(410),
    '/broken.ics': status(503, 'maintenance'),
    '/login.ics': status(200, '<!DOCTYPE html><html><body><form>Sign in</form></body></html>', 'text/html'),
    '/api.csv': status(200, '{"error":"unauthorized"}', 'application/json'),
    '/cut.ics': truncated(ICS, 600),
    '/stall.ics': stalled(ICS, 600),
  });
});
afterAll(() => server.close());

const text = async (url: string) => {
  const fetched = await fetchSource(url, { type: 'ics' });
  if (fetched.notModified) throw new Error('unexpected 304');
  return Buffer.from(await readBody(fetched.body)).toString('utf8');
};

/** The SourceFetchError `promise` rejects with (its body read to the end, where errors of the body show). */
const failure = async (promise: Promise<unknown>): Promise<SourceFetchError> => {
  try {
    const fetched = (await promise) as Awaited<ReturnType<typeof fetchSource>>;
    if (!fetched.notModified) await readBody(fetched.body);
  } catch (err) {
    expect(err).toBeInstanceOf(SourceFetchError);
    return err as SourceFetchError;
  }
  throw new Error('expected the fetch to fail');
};

describe('fetchSource', () => {
  it('answers a repeated GET with the ETag it was given as not modified, without a body', async () => {
    const first = await fetchSource(`${server.url}/etag.ics`, { type: 'ics' });
    expect(first.notModified).toBe(false);
    if (first.notModified) return;
    expect(first.validators).toEqual({ etag: '"v1"' });
    expect(Buffer.from(await readBody(first.body)).toString()).toBe(ICS);
    const again = await fetchSource(`${server.url}/etag.ics`, { type: 'ics', validators: first.validators });
    expect(again.notModified).toBe(true);
    expect(server.requests.at(-1)?.headers['if-none-match']).toBe('"v1"');
  });

  it('sends Last-Modified back as If-Modified-Since when the server gives no ETag', async () => {
    const first = await fetchSource(`${server.url}/modified.ics`, { type: 'ics' });
    if (first.notModified) throw new Error('unexpected 304');
    await readBody(first.body);
    expect(first.validators).toEqual({ lastModified: 'Sat, 21 Nov 2026 10:00:00 GMT' });
    const again = await fetchSource(`${server.url}/modified.ics`, {
      type: 'ics',
      validators: first.validators,
    });
    expect(again.notModified).toBe(true);
  });

  it('decodes gzip and brotli bodies', async () => {
    expect(await text(`${server.url}/gzip.ics`)).toBe(ICS);
    expect(await text(`${server.url}/br.ics`)).toBe(ICS);
    expect(server.requests.find((r) => r.path === '/gzip.ics')?.headers['accept-encoding']).toMatch(/gzip/);
  });

  it('follows redirects, and gives up on a loop naming the redirect limit', async () => {
    expect(await text(`${server.url}/hop1`)).toBe(ICS);
    const err = await failure(fetchSource(`${server.url}/loop`, { type: 'ics', maxRedirects: 3 }));
    expect(err.code).toBe('source_too_many_redirects');
  });

  it('reads webcal:// as http on a loopback host (https elsewhere)', async () => {
    expect(await text(`${server.url.replace('http:', 'webcal:')}/etag.ics`)).toBe(ICS);
    expect(sourceUrl('webcal://calendar.example.org/feed.ics').href).toBe(
      'https://calendar.example.org/feed.ics',
    );
  });

  it('fails on 404/410 and 5xx with the status and the URL', async () => {
    const gone = await failure(fetchSource(`${server.url}/gone.ics`, { type: 'ics' }));
    expect([gone.code, gone.status, gone.url]).toEqual(['source_not_found', 410, `${server.url}/gone.ics`]);
    const broken = await failure(fetchSource(`${server.url}/broken.ics`, { type: 'ics' }));
    expect([broken.code, broken.status]).toEqual(['source_http_error', 503]);
    expect(broken.message).toContain(`GET ${server.url}/broken.ics: HTTP 503`);
  });

  it('refuses a login page served as 200 instead of the calendar, and JSON instead of a CSV', async () => {
    const login = await failure(fetchSource(`${server.url}/login.ics`, { type: 'ics' }));
    expect(login.code).toBe('source_not_calendar');
    expect(login.message).toMatch(/HTML page/);
    const api = await failure(fetchSource(`${server.url}/api.csv`, { type: 'csv' }));
    expect(api.code).toBe('source_not_calendar');
    expect(api.message).toMatch(/JSON/);
  });

  it('fails on a download cut short instead of returning part of the calendar', async () => {
    const err = await failure(fetchSource(`${server.url}/cut.ics`, { type: 'ics' }));
    expect(err.code).toBe('source_truncated');
  });

  it('fails on a body that stalls past the timeout', async () => {
    const err = await failure(fetchSource(`${server.url}/stall.ics`, { type: 'ics', timeoutMs: 300 }));
    expect(err.code).toBe('source_timeout');
  });

  it('fails on a body larger than the size limit, also when it arrives compressed', async () => {
    const plain = await failure(fetchSource(`${server.url}/etag.ics`, { type: 'ics', maxBytes: 1000 }));
    expect(plain.code).toBe('source_too_large');
    const packed = await failure(fetchSource(`${server.url}/gzip.ics`, { type: 'ics', maxBytes: 1000 }));
    expect(packed.code).toBe('source_too_large');
  });

  it('fails clearly when nothing listens', async () => {
    const err = await failure(fetchSource('http://127.0.0.1:9/feed.ics', { type: 'ics' }));
    expect(err.code).toBe('source_unreachable');
  });
});
