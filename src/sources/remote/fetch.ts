/**
 * `fetchSource(url, options)`: one GET of a remote source (`source.url`) with undici, as a stream of the
 * decoded body for the .ics and CSV readers. Public: fetchSource, sourceUrl, readBody, REMOTE_DEFAULTS.
 *
 * - `webcal://` is https (the scheme Apple popularised for subscriptions is not a protocol of its own);
 *   http for a loopback host, where nobody serves TLS.
 * - Conditional GET (RFC 9110 13.1): the ETag and Last-Modified of the last successful run are sent as
 *   If-None-Match / If-Modified-Since; a 304 is returned as `notModified` and nothing is read.
 * - Redirects are followed by hand, at most `maxRedirects`, http(s) only, so that the error can say where
 *   the chain went.
 * - gzip, deflate and br are decoded with node:zlib; `maxBytes` bounds the decoded size (a small
 *   compressed body may expand a thousandfold).
 * - A truncated download — fewer bytes than Content-Length, a connection closed mid-body, a body that
 *   stalls past `timeoutMs` — is an error, never a shorter calendar: a shorter calendar would mean
 *   deletions. undici enforces Content-Length itself (UND_ERR_RES_CONTENT_LENGTH_MISMATCH); the count
 *   here also covers what undici hands over without complaint.
 * - A body that is not the calendar asked for (a login page, a JSON error) is refused before it reaches
 *   the reader (sniff.ts).
 */
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request } from 'undici';
import pkg from '../../../package.json' with { type: 'json' };
import { SOURCE_ERRORS, SourceFetchError } from './errors.ts';
import { checkBody, type SourceType } from './sniff.ts';

export const REMOTE_DEFAULTS = {
  /** Milliseconds to wait for the answer's headers, and again between two chunks of its body. */
  timeoutMs: 30_000,
  /** Largest decoded body, bytes: 50 MiB is ~80,000 VEVENTs, far beyond any real feed. */
  maxBytes: 50 * 1024 * 1024,
  /** Redirects followed before giving up. */
  maxRedirects: 5,
} as const;

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export interface FetchOptions {
  type: SourceType;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** From the last successful run: sent as If-None-Match / If-Modified-Since. */
  validators?: Validators;
}

export type Fetched =
  | { notModified: true; url: string }
  | {
      notModified: false;
      /** Where the body came from, after redirects. */
      url: string;
      contentType: string;
      /** To keep for the next run's conditional GET. */
      validators: Validators;
      /** The decoded body; errors (truncation, timeout, size) surface while it is read. */
      body: AsyncIterable<Uint8Array>;
      /** Drops the connection; for a reader that stops before the end (done by itself at the end). */
      close(): Promise<void>;
    };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const ACCEPT: Record<SourceType, string> = {
  ics: 'text/calendar, text/plain;q=0.5, */*;q=0.1',
  csv: 'text/csv, text/plain;q=0.5, */*;q=0.1',
};

/** `webcal://host/x` → `https://host/x` (http on a loopback host); http(s) as is; anything else is refused. */
export function sourceUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SourceFetchError(SOURCE_ERRORS.badUrl, raw, 'not a URL');
  }
  if (url.protocol === 'webcal:') {
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return new URL(`${loopback ? 'http' : 'https'}:${raw.slice('webcal:'.length)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceFetchError(
      SOURCE_ERRORS.badUrl,
      raw,
      `expected http, https or webcal, got ${url.protocol}`,
    );
  return url;
}

export async function fetchSource(raw: string, options: FetchOptions): Promise<Fetched> {
  const timeout = options.timeoutMs ?? REMOTE_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? REMOTE_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? REMOTE_DEFAULTS.maxRedirects;
  const agent = new Agent({ connect: { timeout }, keepAliveTimeout: 1 });
  let released: Promise<void> | undefined;
  // Once, whoever comes first: the body read to its end, or the reader giving up on it.
  const release = () => {
    released ??= agent.destroy().catch(() => {});
    return released;
  };
  let url = sourceUrl(raw);
  try {
    for (let hops = 0; ; hops++) {
      const headers: Record<string, string> = {
        'user-agent': `calsync/${pkg.version}`,
        accept: ACCEPT[options.type],
        'accept-encoding': 'gzip, br, deflate',
      };
      if (options.validators?.etag) headers['if-none-match'] = options.validators.etag;
      if (options.validators?.lastModified) headers['if-modified-since'] = options.validators.lastModified;
      const res = await request(url, {
        method: 'GET',
        headers,
        dispatcher: agent,
        headersTimeout: timeout,
        bodyTimeout: timeout,
      }).catch((err) => {
        throw transportError(err, url.href, timeout, 'headers');
      });
      const header = (name: string) => {
        const v = res.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      if (REDIRECTS.has(res.statusCode) && header('location')) {
        await res.body.dump();
        const next = new URL(header('location') as string, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:')
          throw new SourceFetchError(SOURCE_ERRORS.badUrl, url.href, `redirected to ${next.href}`);
        if (hops >= maxRedirects)
          throw new SourceFetchError(
            SOURCE_ERRORS.redirects,
            raw,
            `more than ${maxRedirects} redirects (the last to ${next.href})`,
            res.statusCode,
          );
        url = next;
        continue;
      }
      if (res.statusCode === 304) {
        await res.body.dump();
        // A 304 only means something as the answer to our validators (RFC 9110 15.4.5).
        if (!options.validators?.etag && !options.validators?.lastModified)
          throw new SourceFetchError(
            SOURCE_ERRORS.http,
            url.href,
            'HTTP 304 to a GET that asked for no validation',
            304,
          );
        await release();
        return { notModified: true, url: url.href };
      }
      if (res.statusCode !== 200) {
        await res.body.dump().catch(() => {});
        const code =
          res.statusCode === 404 || res.statusCode === 410 ? SOURCE_ERRORS.notFound : SOURCE_ERRORS.http;
        throw new SourceFetchError(code, url.href, `HTTP ${res.statusCode}`, res.statusCode);
      }
      const length = header('content-length');
      const contentType = header('content-type') ?? '';
      const body = decoded(res.body, {
        url: url.href,
        timeout,
        maxBytes,
        contentLength: length === undefined ? undefined : Number(length),
        encoding: (header('content-encoding') ?? '').trim().toLowerCase(),
      });
      const checked = await checkBody(body, { type: options.type, url: url.href, contentType });
      return {
        notModified: false,
        url: url.href,
        contentType,
        validators: {
          ...(header('etag') ? { etag: header('etag') } : {}),
          ...(header('last-modified') ? { lastModified: header('last-modified') } : {}),
        },
        body: closing(checked, release),
        close: release,
      };
    }
  } catch (err) {
    await release();
    throw err;
  }
}

/** The whole body in memory (the .ics reader takes bytes), within the size limit already enforced. */
export async function readBody(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

interface BodyInfo {
  url: string;
  timeout: number;
  maxBytes: number;
  contentLength?: number;
  encoding: string;
}

/** Raw bytes counted against Content-Length, then decoded, then counted against the size limit. */
async function* decoded(raw: AsyncIterable<Uint8Array>, info: BodyInfo): AsyncGenerator<Uint8Array> {
  const counted = async function* () {
    let bytes = 0;
    try {
      for await (const chunk of raw) {
        bytes += chunk.length;
        // Compressed bytes beyond the limit cannot decode to less: stop reading early.
        if (bytes > info.maxBytes) throw tooLarge(info);
        yield chunk;
      }
    } catch (err) {
      throw err instanceof SourceFetchError ? err : transportError(err, info.url, info.timeout, 'body');
    }
    if (info.contentLength !== undefined && Number.isFinite(info.contentLength) && bytes < info.contentLength)
      throw truncated(info.url, `${bytes} of ${info.contentLength} bytes arrived`);
  };
  const decoder = decoderFor(info);
  const stream = decoder ? pipeline(Readable.from(counted()), decoder, () => {}) : counted();
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Uint8Array>) {
      total += chunk.length;
      if (total > info.maxBytes) throw tooLarge(info);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof SourceFetchError) throw err;
    // zlib: "unexpected end of file" is a compressed body cut short.
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'Z_BUF_ERROR' || /unexpected end/i.test(e.message))
      throw truncated(info.url, `the ${info.encoding} body ends early`);
    if (e.code?.startsWith('Z_') || e.code?.startsWith('ERR_BROTLI'))
      throw new SourceFetchError(
        SOURCE_ERRORS.http,
        info.url,
        `cannot decode the ${info.encoding} body: ${e.message}`,
      );
    throw err;
  }
}

function decoderFor(info: BodyInfo): Transform | undefined {
  switch (info.encoding) {
    case '':
    case 'identity':
      return undefined;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    case 'br':
      return createBrotliDecompress();
    default:
      throw new SourceFetchError(
        SOURCE_ERRORS.http,
        info.url,
        `unsupported Content-Encoding "${info.encoding}"`,
      );
  }
}

/** Closes the connection pool once the body has been read (or abandoned). */
async function* closing(
  body: AsyncIterable<Uint8Array>,
  release: () => Promise<void>,
): AsyncGenerator<Uint8Array> {
  try {
    yield* body;
  } finally {
    await release();
  }
}

const tooLarge = (info: BodyInfo) =>
  new SourceFetchError(
    SOURCE_ERRORS.tooLarge,
    info.url,
    `the body is larger than ${info.maxBytes} bytes (source.max_bytes)`,
  );

const truncated = (url: string, what: string) =>
  new SourceFetchError(SOURCE_ERRORS.truncated, url, `the download was cut short: ${what}`);

/** undici and socket errors → what happened, in the source's terms. */
function transportError(err: unknown, url: string, timeout: number, phase: 'headers' | 'body'): Error {
  if (err instanceof SourceFetchError) return err;
  const e = err as NodeJS.ErrnoException;
  if (phase === 'headers' && (e.code === 'UND_ERR_SOCKET' || e.code === 'ECONNRESET'))
    return new SourceFetchError(
      SOURCE_ERRORS.unreachable,
      url,
      `the connection closed before an answer (${e.message})`,
    );
  switch (e.code) {
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new SourceFetchError(
        SOURCE_ERRORS.timeout,
        url,
        `no answer within ${timeout} ms (source.timeout_ms)`,
      );
    case 'UND_ERR_BODY_TIMEOUT':
      return new SourceFetchError(
        SOURCE_ERRORS.timeout,
        url,
        `the body stalled for ${timeout} ms (source.timeout_ms)`,
      );
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new SourceFetchError(SOURCE_ERRORS.unreachable, url, `no connection within ${timeout} ms`);
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'UND_ERR_ABORTED':
      return truncated(url, `the connection ended early (${e.message})`);
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new SourceFetchError(SOURCE_ERRORS.unreachable, url, `cannot connect (${e.code})`);
    default:
      return err as Error;
  }
}
