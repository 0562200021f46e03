/**
 * Fetching an image URL for sideloading (B.6.2) without letting callers use the server to reach
 * its own network (SSRF): unless allowed, a URL whose host is, or resolves to, a loopback,
 * private, link-local or otherwise special-purpose address is refused — checked on every redirect hop
 * and again at connect time, so a DNS answer that changes between the two cannot slip through.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, request as Request } from 'undici';

const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

/** Why an image URL was refused, safe to tell the caller (network errors are not echoed). */
export class FetchProblem extends Error {}

/**
 * Public means ipaddr.js's `unicast`: not in any of its special-purpose ranges (IANA's registries:
 * loopback, private, link-local, carrier-grade NAT, multicast, documentation and benchmarking
 * networks such as 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24 and 198.18.0.0/15, reserved, NAT64,
 * 6to4, Teredo, unique-local …), a maintained list instead of our own. IPv4-mapped IPv6 addresses are
 * judged as the IPv4 address they carry.
 */
export function isPublic(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/** dns.lookup that fails for non-public answers: what undici connects to is what was checked. */
const publicLookup = ((
  hostname: string,
  options: object,
  callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
) => {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const allowed = addresses.filter((a) => isPublic(a.address));
    if (allowed.length === 0) return callback(new FetchProblem('not a public address'), []);
    if ((options as { all?: boolean }).all) return callback(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
}) as unknown as typeof dnsLookup;

/**
 * undici and its agents, loaded on the first image fetched: most servers and every import into the local
 * target never sideload one, and undici is ~25 MB of a process's memory loaded.
 */
let client: Promise<{ request: typeof Request; public: Agent; any: Agent }> | undefined;
const undici = () =>
  (client ??= import('undici').then(({ Agent, request }) => ({
    request,
    public: new Agent({
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
      connect: { lookup: publicLookup },
    }),
    any: new Agent({ headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
  })));

export interface FetchOptions {
  maxBytes: number;
  /** Also fetch from loopback and private networks (tests, intranets). */
  allowPrivate: boolean;
  /** Content types accepted. */
  accept: ReadonlySet<string>;
}

/** The body and content type of an image URL, following up to 3 redirects; throws FetchProblem. */
export async function fetchImage(url: string, opts: FetchOptions): Promise<{ body: Buffer; mime: string }> {
  let target = new URL(url);
  for (let hop = 0; ; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new FetchProblem('not an http(s) URL');
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!opts.allowPrivate && isIP(host) && !isPublic(host)) throw new FetchProblem('not a public address');
    const http = await undici();
    let res: Awaited<ReturnType<typeof Request>>;
    try {
      res = await http.request(target, { dispatcher: opts.allowPrivate ? http.any : http.public });
    } catch (err) {
      throw err instanceof FetchProblem || (err as { cause?: unknown }).cause instanceof FetchProblem
        ? new FetchProblem('not a public address')
        : new FetchProblem('no answer');
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await res.body.dump();
      if (hop >= MAX_REDIRECTS) throw new FetchProblem('too many redirects');
      target = new URL(location, target);
      continue;
    }
    const mime = String(res.headers['content-type'] ?? '')
      .split(';')[0]
      .trim()
      .toLowerCase();
    if (res.statusCode !== 200 || !opts.accept.has(mime)) {
      await res.body.dump();
      throw new FetchProblem(`HTTP ${res.statusCode} ${mime || 'without a content type'}`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > opts.maxBytes) {
        res.body.destroy();
        throw new FetchProblem(`larger than ${opts.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return { body: Buffer.concat(chunks), mime };
  }
}
