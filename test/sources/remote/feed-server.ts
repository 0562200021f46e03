/**
 * A feed server for remote-source tests: node:http on a loopback port, one handler per path, recording
 * every request (path and headers) so that a test can tell a conditional GET from a plain one.
 * `feed(...)` serves a body the way real servers do: with an ETag and Last-Modified, 304 to a matching
 * If-None-Match / If-Modified-Since, gzip or br when asked.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface FeedServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: { path: string; headers: IncomingMessage['headers'] }[];
  /** Replaces or adds a handler. */
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

export async function startFeedServer(routes: Record<string, Handler> = {}): Promise<FeedServer> {
  const handlers = new Map(Object.entries(routes));
  const requests: FeedServer['requests'] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    requests.push({ path, headers: req.headers });
    const handler = handlers.get(path);
    if (handler) handler(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (path, handler) => handlers.set(path, handler),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

export interface FeedOptions {
  contentType?: string;
  etag?: string;
  lastModified?: string;
  /** Compress when the client accepts it. */
  encoding?: 'gzip' | 'br';
}

/** A body served like a real feed: validators, 304s, optional compression. `body()` is read per request. */
export function feed(body: () => string | Buffer, options: FeedOptions = {}): Handler {
  return (req, res) => {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'text/calendar; charset=utf-8',
    };
    if (options.etag) headers.etag = options.etag;
    if (options.lastModified) headers['last-modified'] = options.lastModified;
    const matches =
      (options.etag && req.headers['if-none-match'] === options.etag) ||
      (!options.etag && options.lastModified && req.headers['if-modified-since'] === options.lastModified);
    if (matches) {
      res.writeHead(304, headers).end();
      return;
    }
    let bytes = Buffer.from(body());
    if (options.encoding && String(req.headers['accept-encoding'] ?? '').includes(options.encoding)) {
      bytes = options.encoding === 'gzip' ? gzipSync(bytes) : brotliCompressSync(bytes);
      headers['content-encoding'] = options.encoding;
    }
    headers['content-length'] = String(bytes.length);
    res.writeHead(200, headers).end(bytes);
  };
}

/** Announces `length` bytes, sends the first `sent` of `body`, then drops the connection. */
export function truncated(body: string, sent: number): Handler {
  return (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/calendar',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.write(body.slice(0, sent), () => res.socket?.destroy());
  };
}

/** Sends the headers and the first `sent` characters, then nothing more (until the server closes). */
export function stalled(body: string, sent: number): Handler {
  return (_req, res) => {
    res.writeHead(200, {
      'content-type': 'text/calendar',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.write(body.slice(0, sent));
  };
}

export function redirect(to: string, status = 302): Handler {
  return (_req, res) => res.writeHead(status, { location: to }).end();
}

export function status(code: number, body = '', contentType = 'text/plain'): Handler {
  return (_req, res) => res.writeHead(code, { 'content-type': contentType }).end(body);
}
