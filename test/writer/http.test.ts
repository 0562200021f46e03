/**
 * The HTTP target against our real server on a loopback port: the Target contract, and what only HTTP
 * has — credentials, the user agent, keep-alive, refused connections.
 */

import type { Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createHttpTransport,
  createTarget,
  type Transport,
  type TransportRequest,
  USER_AGENT,
} from '../../src/writer/index.ts';
import { targetContract } from './contract.ts';
import { bodyOf, startServer, tempDir } from './setup.ts';

const FAST = { attempts: 3, baseMs: 5, capMs: 20 };

targetContract('the HTTP target', async () => {
  const tmp = await tempDir();
  const server = await startServer(join(tmp.dir, 'calendar.db'));
  const transport = createHttpTransport({
    url: server.url,
    auth: { type: 'basic', username: server.username, password: server.password },
  });
  const target = createTarget(transport, {
    namespace: 'calendar/events/v1',
    label: server.url,
    concurrency: 4,
    retries: FAST,
  });
  return {
    target,
    async dispose() {
      await target.close();
      await server.close();
      await tmp.remove();
    },
  };
});

describe('the HTTP target', () => {
  it('sends its user agent and reuses connections (keep-alive)', async () => {
    const tmp = await tempDir();
    const server = await startServer(join(tmp.dir, 'calendar.db'));
    const agents: string[] = [];
    let connections = 0;
    server.app.server.on('connection', (_s: Socket) => connections++);
    server.app.server.on('request', (req) => agents.push(String(req.headers['user-agent'])));
    const transport = createHttpTransport({
      url: server.url,
      auth: { type: 'basic', username: server.username, password: server.password },
    });
    const target = createTarget(transport, { namespace: 'calendar/events/v1', label: 'x', concurrency: 1 });
    try {
      for (let i = 0; i < 10; i++) await target.create('tag', bodyOf('tag', i));
      // undici may open a second socket while the first is settling; never one per request.
      expect(connections).toBeLessThanOrEqual(2);
      expect(new Set(agents)).toEqual(new Set([USER_AGENT]));
      expect(USER_AGENT).toMatch(/^calsync\/\d+\.\d+\.\d+/);
    } finally {
      await target.close();
      await server.close();
      await tmp.remove();
    }
  });

  it('a wrong application password fails with 401 incorrect_password, not retried', async () => {
    const tmp = await tempDir();
    const server = await startServer(join(tmp.dir, 'calendar.db'));
    const transport = createHttpTransport({
      url: server.url,
      auth: { type: 'basic', username: server.username, password: 'wrong password here' },
    });
    const target = createTarget(transport, {
      namespace: 'calendar/events/v1',
      label: 'x',
      concurrency: 1,
      retries: FAST,
    });
    try {
      await expect(target.create('tag', bodyOf('tag', 1))).rejects.toMatchObject({
        code: 'incorrect_password',
        status: 401,
      });
      expect(target.requests.POST).toBe(1);
    } finally {
      await target.close();
      await server.close();
      await tmp.remove();
    }
  });

  it('a refused connection is a network error, retried up to the attempt limit', async () => {
    const tmp = await tempDir();
    const server = await startServer(join(tmp.dir, 'calendar.db'));
    const url = server.url;
    await server.close();
    await tmp.remove();
    const target = createTarget(createHttpTransport({ url }), {
      namespace: 'calendar/events/v1',
      label: url,
      concurrency: 1,
      retries: FAST,
    });
    try {
      await expect(target.get('event', 1)).rejects.toMatchObject({
        code: 'network',
        status: 0,
        retryable: true,
      });
      expect(target.requests.GET).toBe(3);
    } finally {
      await target.close();
    }
  });

  it('on a target whose updates replace (TEC), drafting resends every field and "delete" only trashes', async () => {
    const tmp = await tempDir();
    const server = await startServer(join(tmp.dir, 'calendar.db'));
    const http = createHttpTransport({
      url: server.url,
      auth: { type: 'basic', username: server.username, password: server.password },
    });
    // Our server under TEC's namespace name, so that the writer takes TEC's capabilities (C.4, C.16).
    const sent: TransportRequest[] = [];
    const asTec: Transport = {
      label: http.label,
      send(req) {
        sent.push(req);
        return http.send({ ...req, path: req.path.replace('/tribe/events/v1', '/calendar/events/v1') });
      },
      close: () => http.close(),
    };
    const target = createTarget(asTec, { namespace: 'tribe/events/v1', label: 'tec', concurrency: 2 });
    try {
      expect(target.capabilities).toEqual({
        updatesReplace: true,
        permanentDelete: false,
        maxPerPage: 50,
        refusesEmptyStrings: true,
        unwritableFields: { event: ['currency_code'] },
        whoAmI: '/wp/v2/users/me',
      });
      const venue = await target.create('venue', bodyOf('venue', 1));
      const organizer = await target.create('organizer', bodyOf('organizer', 1));
      const event = await target.create(
        'event',
        bodyOf('event', 1, {
          venue: venue.id,
          organizer: [organizer.id],
          featured: true,
          currency_code: 'EUR',
        }),
      );
      // TEC's event routes have no currency_code: it is not sent at all.
      expect(sent.find((r) => r.method === 'POST' && r.path.endsWith('/events'))?.body).not.toHaveProperty(
        'currency_code',
      );
      expect(event.body.cost_details).toMatchObject({ currency_code: '' });
      sent.length = 0;
      await target.remove('event', event.id, 'draft');
      const draftWrite = sent.find((r) => r.method === 'POST');
      expect(draftWrite?.body).toMatchObject({
        status: 'draft',
        title: 'Event 1',
        timezone: 'Europe/Berlin',
        cost: ['10', '25'],
        website: 'https://example.com/events',
        venue: venue.id,
        organizer: [organizer.id],
        featured: true,
        show_map: true,
      });
      const drafted = await target.get('event', event.id);
      expect(drafted?.status).toBe('draft');
      expect(drafted?.body.start_date).toBe(event.body.start_date);

      await target.remove('venue', venue.id, 'draft');
      expect(sent.at(-1)?.body).toMatchObject({ venue: 'Venue 1', city: 'Springfield', show_map: 'true' });

      await target.remove('organizer', organizer.id, 'delete');
      expect(sent.at(-1)).toMatchObject({ method: 'DELETE', query: undefined });
      expect((await target.get('organizer', organizer.id))?.status).toBe('trash');
    } finally {
      await target.close();
      await server.close();
      await tmp.remove();
    }
  });
});
