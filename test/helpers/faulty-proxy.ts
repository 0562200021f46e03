/**
 * `startFaultyProxy(upstream)`: a real HTTP server on a loopback port in front of a real server, that fails
 * requests as a script says — the failures a client meets between it and a real WordPress host:
 *
 * - `400`: a JSON 400 `rest_invalid_param` of the API kind, without forwarding (a site's validation refusing
 *   one item: a permanent failure no retry can fix);
 * - `500`: a JSON 500 of the API kind, without forwarding (PHP fatal error before the write);
 * - `503`: an HTML 503 page of a proxy, without forwarding (an overloaded PHP pool);
 * - `429`: `Retry-After: 1`, without forwarding (a rate limiter);
 * - `reset`: the socket destroyed before forwarding (connection reset);
 * - `lose-answer`: forwarded, and the socket destroyed instead of returning the answer (the write happened,
 *   the client cannot know);
 * - `stall`: forwarded, and the answer held back until the proxy closes (the client's timeout fires);
 * - `502`: an HTML 502 page of a reverse proxy whose upstream died, without forwarding;
 * - `429-no-retry-after`: a 429 without `Retry-After` (the client backs off on its own);
 * - `reset-mid-body`: forwarded, then the headers and half the body sent and the socket destroyed (a PHP
 *   worker killed while answering: the write happened, the answer is truncated);
 * - `slow`: forwarded, and the answer sent `delayMs` later (an overloaded host that still answers);
 * - `refuse`: the socket destroyed without forwarding, and the proxy stops listening for `delayMs`, so that
 *   new connections are refused (a web server restarting);
 *
 * and, for the whole proxy, `closeAfter`: every keep-alive connection is closed by the proxy after that
 * many answers, without a `Connection: close` header (a server's `max keep-alive requests`, or an idle
 * timeout shorter than the client's): the client may already have sent its next request on it.
 *
 * A rule may let its first `skip` matching requests through (to spread faults across a run) and may match the
 * request body (to fail one item among many creates on the same path). Requests that match no rule are
 * forwarded unchanged. `log` records every request with its fate and time.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { request } from 'undici';

export type Fault =
  | '400'
  | '500'
  | '502'
  | '503'
  | '429'
  | '429-no-retry-after'
  | 'reset'
  | 'reset-mid-body'
  | 'lose-answer'
  | 'stall'
  | 'slow'
  | 'refuse';

export interface FaultRule {
  fault: Fault;
  method?: string;
  /** Matched against the path (query included). */
  path?: RegExp;
  /** How many matching requests it fails; default 1. */
  times?: number;
  /** How many matching requests it lets through before failing any; default 0. */
  skip?: number;
  /** Matched against the request body as text (e.g. `/"slug":"club-night"/`). */
  body?: RegExp;
  /** `slow`: how late the answer comes; `refuse`: how long new connections are refused. Default 200 ms. */
  delayMs?: number;
}

export interface ProxyOptions {
  /** Close each keep-alive connection after this many answers (see above); default never. */
  closeAfter?: number;
}

export interface ProxyLogEntry {
  method: string;
  url: string;
  fate: Fault | 'forwarded';
  at: number;
}

export interface FaultyProxy {
  /** Origin to send requests to, e.g. `http://127.0.0.1:41234`. */
  url: string;
  fail(rule: FaultRule): void;
  /** Changes `closeAfter` for the connections to come and those open. */
  setOptions(options: ProxyOptions): void;
  log: ProxyLogEntry[];
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFaultyProxy(upstream: string, options: ProxyOptions = {}): Promise<FaultyProxy> {
  const rules: (Required<Omit<FaultRule, 'body'>> & { body?: RegExp; seen: number })[] = [];
  const log: ProxyLogEntry[] = [];
  const sockets = new Set<Socket>();
  /** Answers sent on each connection, for `closeAfter`. */
  const answered = new WeakMap<Socket, number>();
  let closeAfter = options.closeAfter;
  let connections = 0;
  let port = 0;

  const forward = async (req: IncomingMessage, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined && k !== 'host' && k !== 'connection' && k !== 'keep-alive') {
        headers[k] = Array.isArray(v) ? v.join(', ') : v;
      }
    }
    const res = await request(`${upstream}${req.url}`, {
      method: req.method as 'GET',
      headers,
      body: body.length > 0 ? body : undefined,
    });
    return { status: res.statusCode, headers: res.headers, body: Buffer.from(await res.body.arrayBuffer()) };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const text = body.toString('utf8');
    // Every live rule counts the requests it matches, so `skip` means "the (skip+1)-th match" per rule.
    const matching = rules.filter(
      (r) =>
        r.times > 0 &&
        (!r.method || r.method === req.method) &&
        r.path.test(req.url ?? '') &&
        (!r.body || r.body.test(text)),
    );
    for (const r of matching) r.seen++;
    const rule = matching.find((r) => r.seen > r.skip);
    if (rule) rule.times--;
    const fate = rule?.fault ?? 'forwarded';
    log.push({ method: req.method ?? '', url: req.url ?? '', fate, at: Date.now() });
    switch (fate) {
      case '400':
        res.writeHead(400, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(
          JSON.stringify({
            code: 'rest_invalid_param',
            message: 'Invalid parameter(s): start_date',
            data: { status: 400, params: { start_date: 'The start date is not valid.' } },
          }),
        );
        return;
      case '500':
        res.writeHead(500, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(
          JSON.stringify({
            code: 'internal_server_error',
            message: 'There has been a critical error on this website.',
            data: { status: 500 },
          }),
        );
        return;
      case '502':
        res.writeHead(502, { 'content-type': 'text/html' });
        res.end('<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>');
        return;
      case '429-no-retry-after':
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({ code: 'rest_too_many_requests', message: 'Slow down.', data: { status: 429 } }),
        );
        return;
      case 'refuse':
        await refuseFor(rule?.delayMs ?? 200);
        return;
      case 'reset-mid-body': {
        const answer = await forward(req, body);
        res.writeHead(answer.status, {
          'content-type': String(answer.headers['content-type'] ?? 'application/json'),
          'content-length': String(answer.body.length),
        });
        res.write(answer.body.subarray(0, Math.floor(answer.body.length / 2)));
        // Let the half reach the client before the reset.
        setTimeout(() => req.socket.destroy(), 5);
        return;
      }
      case 'slow': {
        const answer = await forward(req, body);
        await new Promise((r) => setTimeout(r, rule?.delayMs ?? 200));
        reply(req, res, answer);
        return;
      }
      case '503':
        res.writeHead(503, { 'content-type': 'text/html' });
        res.end('<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>');
        return;
      case '429':
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(
          JSON.stringify({ code: 'rest_too_many_requests', message: 'Slow down.', data: { status: 429 } }),
        );
        return;
      case 'reset':
        req.socket.destroy();
        return;
      case 'lose-answer':
        await forward(req, body);
        req.socket.destroy();
        return;
      case 'stall':
        await forward(req, body);
        return; // Never answered; destroyed when the proxy closes.
      case 'forwarded':
        reply(req, res, await forward(req, body));
    }
  };

  const reply = (req: IncomingMessage, res: ServerResponse, answer: Awaited<ReturnType<typeof forward>>) => {
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(answer.headers)) {
      if (v !== undefined && k !== 'connection' && k !== 'keep-alive' && k !== 'transfer-encoding') {
        headers[k] = v;
      }
    }
    res.writeHead(answer.status, headers);
    res.end(answer.body);
    const socket = req.socket;
    const n = (answered.get(socket) ?? 0) + 1;
    answered.set(socket, n);
    // Closed right after the answer, as a server does at its keep-alive limit, without telling the client.
    if (closeAfter !== undefined && n >= closeAfter) res.on('finish', () => socket.destroy());
  };

  /** Drops every connection and refuses new ones for `ms` (the port is closed, then opened again). */
  const refuseFor = async (ms: number) => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
    await new Promise((r) => setTimeout(r, ms));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    fail(rule) {
      rules.push({ method: '', path: /./, times: 1, skip: 0, delayMs: 200, ...rule, seen: 0 });
    },
    setOptions(o) {
      closeAfter = o.closeAfter;
    },
    get connections() {
      return connections;
    },
    log,
    async close() {
      for (const socket of sockets) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
