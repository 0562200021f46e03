/**
 * The landing, docs and event pages in headless Chromium (issue 7, item 8; issue 14): Debian's /usr/bin/chromium driven
 * by playwright-core, against the real server on a 127.0.0.1 port. The landing page renders with its
 * links; the docs page renders the API reference, and "Try it out" → Execute on the events list
 * answers 200 with the seeded events; neither page logs a console error or trips the
 * Content-Security-Policy. Screenshots go to test/artifacts/ (gitignored) for a person to look at.
 *
 * Skipped, saying so, only where /usr/bin/chromium is absent; CI installs it (.ci/run).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthClient } from '../../src/server/auth/oauth-clients.ts';
import { type Harness, makeApp } from '../server/harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));
/** The policy the server sends (src/server/security); set here too should a build lack it. */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; " +
  "frame-ancestors 'none'";
const EVENTS = ['Harbour Jazz Night', 'Winter Book Swap', 'Community Choir Concert'];

const available = existsSync(CHROMIUM);
if (!available)
  console.warn(`test/browser: ${CHROMIUM} not found, browser tests skipped (apt-get install chromium)`);

let h: Harness;
let origin: string;
let profile: string;
let context: BrowserContext;
/** Console errors, page errors, CSP violations and requests that left the server, per page. */
const problems: string[] = [];

beforeAll(async () => {
  if (!available) return;
  await mkdir(ARTIFACTS, { recursive: true });
  profile = await mkdtemp(join(tmpdir(), 'calsync-chromium-'));
  // The configured public URL deliberately differs from the address the browser uses: the docs page
  // must talk to the origin it was loaded from (connect-src 'self'), not to the configured one.
  h = await makeApp({
    path: join(profile, 'calendar.db'),
    demo: { nextReset: () => new Date('2026-11-22T00:00:00Z') },
  });
  h.app.addHook('onSend', async (_req, reply) => {
    if (!reply.getHeader('content-security-policy')) reply.header('content-security-policy', CSP);
  });
  for (const [i, title] of EVENTS.entries()) {
    await h.created('/events', {
      title,
      start_date: `2027-03-0${i + 1} 19:00:00`,
      end_date: `2027-03-0${i + 1} 22:00:00`,
    });
  }
  origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  // Reported by the page itself: Chromium also logs a console error per violation, this names it.
  // (Page code is written as strings: this project's TypeScript has no DOM types.)
  await context.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) =>" +
      " console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + e.blockedURI));",
  });
  context.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()} for ${res.url()}`);
  });
  context.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:'))
      problems.push(`request left the server: ${url}`);
  });
}, 60_000);

afterAll(async () => {
  if (!available) return;
  await context?.close();
  await h?.app.close();
  await rm(profile, { recursive: true, force: true });
});

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  // Fail on a missing element well before the test's own timeout, with Playwright's account of why.
  page.setDefaultTimeout(15_000);
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning')
      problems.push(`${path}: console ${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`${path}: ${err.message}`));
  const res = await page.goto(`${origin}${path}`);
  expect(res?.status()).toBe(200);
  expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
  return page;
}

describe.skipIf(!available)('in headless Chromium', { timeout: 60_000 }, () => {
  it('the landing page renders with the demo banner and links to the API, the docs and the feed', async () => {
    problems.length = 0;
    const page = await open('/');
    await expect(page.locator('h1').textContent()).resolves.toContain('calsync');
    await expect(page.locator('.demo-banner').textContent()).resolves.toContain('00:00 UTC');
    const hrefs: Record<string, string> = {};
    for (const id of ['api-root', 'docs', 'openapi', 'feed']) {
      hrefs[id] = new URL((await page.locator(`#${id}`).getAttribute('href')) ?? '', page.url()).href;
    }
    expect(hrefs).toMatchObject({
      'api-root': `${origin}/api/calendar/events/v1/`,
      docs: `${origin}/docs/`,
      openapi: `${origin}/api/calendar/events/v1/doc`,
      feed: `${origin}/feeds/all.ics`,
    });
    // The stylesheet applied: the banner has its background.
    const background = await page.evaluate(
      "getComputedStyle(document.querySelector('.demo-banner')).backgroundColor",
    );
    expect(background).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({ path: join(ARTIFACTS, 'landing.png'), fullPage: true });
    await page.locator('#docs').click();
    await page.waitForURL(`${origin}/docs/`);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('the events list links each event to its page, which renders with its JSON-LD and an Add to calendar download', async () => {
    problems.length = 0;
    const page = await open('/events/');
    await page.locator('li a', { hasText: EVENTS[0] }).click();
    await page.waitForURL(/\/event\/harbour-jazz-night\/$/);
    await expect(page.locator('h1').textContent()).resolves.toBe(EVENTS[0]);
    // What a crawler reads: the data block parses as a schema.org Event (not run: no CSP report either).
    const ld = (await page.evaluate(
      'JSON.parse(document.querySelector(\'script[type="application/ld+json"]\').textContent)',
    )) as Record<string, unknown>;
    expect(ld).toMatchObject({ '@context': 'https://schema.org', '@type': 'Event', name: EVENTS[0] });
    await page.screenshot({ path: join(ARTIFACTS, 'event.png'), fullPage: true });
    const download = page.waitForEvent('download');
    await page.locator('a', { hasText: 'Add to calendar' }).click();
    expect((await download).suggestedFilename()).toBe('harbour-jazz-night.ics');
    await page.close();
    expect(problems).toEqual([]);
  });

  it('the docs page renders the API reference, and Try it out on the events list answers 200 with events', async () => {
    problems.length = 0;
    const page = await open('/docs/');
    await page.locator('.opblock').first().waitFor();
    const paths = await page.locator('.opblock-summary-path').allTextContents();
    expect(paths.map((p) => p.replace(/\u200b/g, ''))).toEqual(
      expect.arrayContaining(['/events', '/events/{id}', '/venues', '/categories', '/oauth/token']),
    );
    await expect(page.locator('.demo-banner').textContent()).resolves.toContain('00:00 UTC');
    expect(await page.locator('.auth-wrapper .authorize').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'docs.png') });

    const list = page.locator('#operations-Events-listEvents');
    await list.locator('.opblock-summary-control').click();
    await list.locator('.try-out__btn').click();
    await list.locator('button.execute').click();
    const status = list.locator('.live-responses-table .response .response-col_status');
    await status.first().waitFor();
    expect((await status.first().textContent())?.trim()).toBe('200');
    const body = await list
      .locator('.live-responses-table .response-col_description pre')
      .first()
      .textContent();
    for (const title of EVENTS) expect(body).toContain(title);
    // The request went to this origin, not to the configured public URL.
    const url = await list.locator('.request-url pre').textContent();
    expect(url?.startsWith(`${origin}/api/calendar/events/v1/events`)).toBe(true);

    await list
      .locator('.live-responses-table')
      .first()
      .screenshot({ path: join(ARTIFACTS, 'docs-try-it.png') });
    await page.close();
    expect(problems).toEqual([]);
  });

  it('Authorize with an OAuth client id and secret gets a token, and Try it out creates an event with it', async () => {
    problems.length = 0;
    const { record, secret } = await createOAuthClient(
      h.store,
      h.users.editor,
      'docs',
      '2026-11-21 12:00:00',
    );
    const page = await open('/docs/');
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('#client_id_clientCredentials').fill(record.client_id);
    await page.locator('#client_secret_clientCredentials').fill(secret);
    await page.locator('label[for="write-clientCredentials-checkbox-oauth2"]').click();
    await page.locator('button[aria-label="Apply given OAuth2 credentials"]').click();
    // Swagger UI swaps the button for "Logout" once the token endpoint has answered.
    await page.locator('.modal-ux button', { hasText: 'Logout' }).first().waitFor();
    await page.locator('.modal-ux .close-modal').click();

    const create = page.locator('#operations-Events-createEvent');
    await create.locator('.opblock-summary-control').click();
    await create.locator('.try-out__btn').click();
    const title = 'Made in the API docs';
    await create
      .locator('textarea.body-param__text')
      .fill(JSON.stringify({ title, start_date: '2027-04-01 19:00:00', end_date: '2027-04-01 21:00:00' }));
    await create.locator('button.execute').click();
    const status = create.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('201');
    expect(await create.locator('.curl-command').textContent()).toContain('Authorization: Bearer ey');
    const made = await h.call('GET', `/events?search=${encodeURIComponent(title)}`);
    expect(made.json.events.map((e: { title: string; author: string }) => [e.title, e.author])).toEqual([
      [title, String(h.users.editor.id)],
    ]);
    await page.close();
    expect(problems).toEqual([]);
  });

  it('Authorize takes a Bearer token got elsewhere (curl), and Try it out sends it', async () => {
    problems.length = 0;
    const { record, secret } = await createOAuthClient(
      h.store,
      h.users.author,
      'curl',
      '2026-11-21 12:00:00',
    );
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `grant_type=client_credentials&scope=read&client_id=${record.client_id}&client_secret=${secret}`,
    });
    const token: string = res.json().access_token;
    const page = await open('/docs/');
    await page.locator('.auth-wrapper .authorize').click();
    await page.locator('#auth-bearer-value').fill(token);
    await page
      .locator('.auth-container', { has: page.locator('#auth-bearer-value') })
      .locator('button.authorize')
      .click();
    await page.locator('.modal-ux .close-modal').click();

    const list = page.locator('#operations-Events-listEvents');
    await list.locator('.opblock-summary-control').click();
    await list.locator('.try-out__btn').click();
    await list.locator('button.execute').click();
    const status = list.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await list.locator('.curl-command').textContent()).toContain(`Authorization: Bearer ${token}`);
    // An authenticated answer is private to its caller (app.ts): the server took the token.
    expect(
      await list.locator('.live-responses-table .response .response-col_description').first().textContent(),
    ).toContain('cache-control: no-store');
    await page.close();
    expect(problems).toEqual([]);
  });
});
