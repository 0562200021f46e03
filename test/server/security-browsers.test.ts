/**
 * Issue 15 item 4, over a real loopback socket: a browser is never asked for a Basic login (it would
 * keep the credentials and send them with requests other sites make it send), and a cross-site form
 * POST carrying credentials is refused before it writes anything. Clients that are not browsers keep
 * contract B.2's challenge and may post forms as before.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, makeApp, NS, SITE, snapshot } from './harness.ts';

describe('browser defences', () => {
  let h: Harness;
  let origin: string;
  beforeAll(async () => {
    h = await makeApp();
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await h.app.close();
  });

  async function send(path: string, headers: Record<string, string>, method = 'GET', body?: string) {
    const res = await request(`${origin}${path}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, json: text ? JSON.parse(text) : undefined };
  }
  const browser = { 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'same-origin' };
  const wrong = { authorization: `Basic ${Buffer.from('editor:wrong').toString('base64')}` };

  it('a 401 to a browser does not challenge with Basic; other clients get the full challenge', async () => {
    const toBrowser = await send(`${NS}/events?status=draft`, browser);
    expect(toBrowser.status).toBe(401);
    expect(toBrowser.headers['www-authenticate']).toBe('Bearer realm="calsync"');
    const badToken = await send(`${NS}/events`, { ...browser, authorization: 'Bearer nope' });
    expect(badToken.headers['www-authenticate']).toBe('Bearer realm="calsync", error="invalid_token"');
    const wrongBasic = await send(`${NS}/events`, { ...browser, ...wrong });
    expect(String(wrongBasic.headers['www-authenticate'])).not.toMatch(/basic/i);
    // The token endpoint's challenge is Basic only: a browser gets none.
    const token = await send(
      '/api/oauth/token',
      { ...browser, 'content-type': 'application/x-www-form-urlencoded', origin: SITE },
      'POST',
      'grant_type=client_credentials&client_id=cs_x&client_secret=y',
    );
    expect(token.status).toBe(401);
    expect(token.headers['www-authenticate']).toBeUndefined();

    const toCurl = await send(`${NS}/events?status=draft`, {});
    expect(toCurl.headers['www-authenticate']).toBe('Basic realm="calsync", Bearer realm="calsync"');
  });

  it('a cross-site form POST with credentials is refused and writes nothing; same-site and non-browser posts work', async () => {
    const before = await snapshot(h.store);
    const form = new URLSearchParams({
      title: 'Forged',
      start_date: '2027-01-01 10:00',
      end_date: '2027-01-01 11:00',
    }).toString();
    const formHeaders = { ...h.auth('editor'), 'content-type': 'application/x-www-form-urlencoded' };
    for (const headers of [
      { ...formHeaders, origin: 'https://evil.example' },
      { ...formHeaders, origin: 'null' },
      { ...formHeaders, 'sec-fetch-site': 'cross-site' },
      { ...formHeaders, 'content-type': 'text/plain', origin: 'https://evil.example' },
    ]) {
      const res = await send(`${NS}/events`, headers, 'POST', form);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.json.code).toBe('rest_cross_origin_write');
    }
    expect(await snapshot(h.store)).toBe(before);

    const sameSite = await send(`${NS}/events`, { ...formHeaders, origin: SITE }, 'POST', form);
    expect(sameSite.status).toBe(201);
    // The host the page was loaded from (the docs page's OAuth form), whatever the configured site URL.
    const sameHost = await send(`${NS}/events`, { ...formHeaders, origin }, 'POST', form);
    expect(sameHost.status).toBe(201);
    const script = await send(`${NS}/events`, formHeaders, 'POST', form);
    expect(script.status).toBe(201);
    // JSON from another origin needs a CORS preflight a browser would not get past; a script may send it.
    const json = await send(
      `${NS}/events`,
      { ...h.auth('editor'), 'content-type': 'application/json', origin: 'https://tools.example' },
      'POST',
      JSON.stringify({ title: 'From a tool', start_date: '2027-01-02 10:00', end_date: '2027-01-02 11:00' }),
    );
    expect(json.status).toBe(201);
  });
});
