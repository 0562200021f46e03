/**
 * Issue 7 item 6, limits and timeouts over a real loopback socket, with small limits so that nothing
 * waits long: a client sending its headers a byte at a time (slowloris) or its body a byte at a time
 * is cut off with a 408, an idle keep-alive connection is closed by the server, oversized headers are
 * a 431 and an oversized body a 413. Each would hang or pass with Node's and Fastify's defaults
 * (60 s for headers, 300 s per request, 72 s keep-alive).
 */
import { STATUS_CODES } from 'node:http';
import { connect, type Socket } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/server/config.ts';
import { type Harness, makeApp, NS } from './harness.ts';

/** A client that writes `head`, then one byte of `drip` every 20 ms until the server hangs up. */
function slowClient(port: number, head: string, drip = 'a'): Promise<{ received: string; dripped: number }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    let dripped = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) {
          socket.write(drip);
          dripped++;
        }
      }, 20);
    });
    socket.on('data', (c) => (received += c));
    socket.on('error', () => {}); // a reset after the 408 is part of being cut off
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, dripped });
    });
    socket.setTimeout(8_000, () => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`still connected after 8 s, ${dripped} bytes dripped`));
    });
  });
}

/** Writes `bytes` on a new connection and resolves with all the server sent until it closed it. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (c) => (got += c));
    socket.on('error', () => {});
    socket.on('close', () => resolve(got));
    socket.write(bytes);
  });
}

describe('socket limits', () => {
  let h: Harness;
  let origin: string;
  let port: number;

  beforeAll(async () => {
    h = await makeApp({
      limits: {
        headersTimeoutMs: 300,
        requestTimeoutMs: 600,
        idleTimeoutMs: 5_000,
        keepAliveTimeoutMs: 200,
        maxHeaderBytes: 4096,
      },
    });
    origin = await h.app.listen({ host: '127.0.0.1', port: 0 });
    port = Number(new URL(origin).port);
  });
  afterAll(async () => {
    await h.app.close();
  });

  it('a client sending its headers a byte at a time is answered 408 and cut off', async () => {
    const { received, dripped } = await slowClient(
      port,
      `GET ${NS}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `,
    );
    // limits.ts writes the reason phrases itself (it loads no node:http): node:http's own.
    expect(received.startsWith(`HTTP/1.1 408 ${STATUS_CODES[408]}\r\n`)).toBe(true);
    expect(received).toContain('"code":"rest_request_timeout"');
    // It was cut off while still sending, well before it could have finished (it never would).
    expect(dripped).toBeGreaterThan(0);
    expect(dripped).toBeLessThan(200);
  });

  it('a client sending its body a byte at a time is answered 408 and cut off', async () => {
    const { received, dripped } = await slowClient(
      port,
      `POST ${NS}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(h.auth('editor'))
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"title":"`,
    );
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(dripped).toBeLessThan(1_000);
    // Nothing was created.
    expect(await h.store.getPost(1)).toBeFalsy();
  });

  it('the server is not worse for it: a normal request right after is answered', async () => {
    const res = await request(`${origin}${NS}/events`);
    expect(res.statusCode).toBe(200);
    await res.body.dump();
  });

  it('an idle keep-alive connection is closed by the server after the announced timeout', async () => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => (received += c));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(`GET ${NS}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    await closed;
    // Answered, kept open (no `Connection: close`), then closed by the server with nothing more sent.
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received).toMatch(/\r\nConnection: keep-alive\r\n/i);
  });

  it('headers over the limit are a 431', async () => {
    const res = await rawExchange(
      port,
      `GET ${NS}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${'x'.repeat(5000)}\r\n\r\n`,
    );
    expect(res.startsWith(`HTTP/1.1 431 ${STATUS_CODES[431]}\r\n`)).toBe(true);
    expect(res).toContain('"code":"rest_headers_too_large"');
    // Headers just under the limit are fine.
    const ok = await request(`${origin}${NS}/events`, { headers: { 'x-fill': 'x'.repeat(3000) } });
    expect(ok.statusCode).toBe(200);
    await ok.body.dump();
  });

  it('a request Node cannot parse is a 400 with the catalogue shape', async () => {
    const res = await rawExchange(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(res.startsWith(`HTTP/1.1 400 ${STATUS_CODES[400]}\r\n`)).toBe(true);
    expect(res).toContain('"code":"rest_bad_request"');
  });

  it('a body over the limit is a 413 and writes nothing', async () => {
    const res = await request(`${origin}${NS}/events`, {
      method: 'POST',
      headers: { ...h.auth('editor'), 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Big',
        start_date: '2027-03-01 19:00',
        description: 'x'.repeat(1_100_000),
      }),
    });
    expect(res.statusCode).toBe(413);
    expect(((await res.body.json()) as { code: string }).code).toBe('rest_request_too_large');
    expect(await h.store.getPost(1)).toBeFalsy();
  });
});

describe('limit settings', () => {
  it('are stated by default: 10 s for headers, 30 s per request, 5 s keep-alive, 16 KiB of headers', () => {
    expect(resolveConfig({}).limits).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
    });
  });

  it('refuse a request timeout shorter than the headers timeout, and non-positive values', () => {
    expect(() => resolveConfig({ limits: { headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 } })).toThrow(
      /requestTimeoutMs/,
    );
    expect(() => resolveConfig({ limits: { maxHeaderBytes: 0 } })).toThrow(/maxHeaderBytes/);
  });
});
