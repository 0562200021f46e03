/**
 * Fetching an image URL for sideloading (B.6.2) without letting callers use the server to reach
 * its own network (SSRF): unless allowed, a URL whose host is, or resolves to, a loopback,
 * private, link-local or otherwise non-public address is refused — checked on every redirect hop
 * and again at connect time, so a DNS answer that changes between the two cannot slip through.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, request } from 'undici';

const TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 3;

/** Why an image URL was refused, safe to tell the caller (network errors are not echoed). */
export class FetchProblem extends Error {}

const NON_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 127], // :: and ::1
  ['::ffff:0:0', 96], // IPv4-mapped: checked as IPv4 below
  ['64:ff9b::', 96],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, bits, 'ipv6');
}

function isPublic(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return !NON_PUBLIC.check(mapped[1], 'ipv4');
  const family = isIP(address);
  return family !== 0 && !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
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

const agents = {
  public: new Agent({
    headersTimeout: TIMEOUT_MS,
    bodyTimeout: TIMEOUT_MS,
    connect: { lookup: publicLookup },
  }),
  any: new Agent({ headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS }),
};

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
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(target, { dispatcher: opts.allowPrivate ? agents.any : agents.public });
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
