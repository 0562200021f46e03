/**
 * Content codings made once per body and kept with it (RFC 9110 §8.4): the feeds (routes/feeds.ts) and
 * the kept API answers (response-cache.ts) compress a body the first time a client asks for a coding, on
 * libuv's thread pool, and send the kept bytes with Content-Encoding set, which @fastify/compress then
 * leaves alone. The plugin compresses every other answer, on the event loop, each time: a kept
 * 50-event page (200 KB) cost ~3 ms of gzip or ~10 ms of brotli per request that way.
 *
 * Public: `Coding`, `pickCoding(acceptEncoding)`, `compress(body, coding)`, `MIN_COMPRESS_BYTES`.
 */
import { promisify } from 'node:util';

export type Coding = 'br' | 'gzip';

/** Smaller bodies are sent as they are: a coding's header and framing would eat what it saves. */
export const MIN_COMPRESS_BYTES = 1024;

/**
 * node:zlib, loaded by the first body compressed: the in-process caller of the local import target
 * (in-process.ts) reads response-cache.ts, which imports this file, and never compresses (issue 17).
 */
async function loadCodecs() {
  const { brotliCompress, constants, gzip } = await import('node:zlib');
  return { brotli: promisify(brotliCompress), gzip: promisify(gzip), constants };
}
let codecs: ReturnType<typeof loadCodecs> | undefined;
const zlib = () => (codecs ??= loadCodecs());

/** `br` over `gzip` when both are acceptable (smaller), per Accept-Encoding's q-values. */
export function pickCoding(header: string | undefined): Coding | null {
  if (!header) return null;
  let br = 0;
  let gzip = 0;
  let any = -1;
  for (const part of header.toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    const qParam = params.find((p) => p.trim().startsWith('q='));
    const q = qParam ? Number(qParam.trim().slice(2)) : 1;
    const weight = Number.isFinite(q) ? q : 0;
    if (name === 'br') br = weight;
    else if (name === 'gzip' || name === 'x-gzip') gzip = weight;
    else if (name === '*') any = weight;
  }
  if (any >= 0) {
    if (br === 0 && !header.includes('br')) br = any;
    if (gzip === 0 && !header.includes('gzip')) gzip = any;
  }
  if (br > 0 && br >= gzip) return 'br';
  return gzip > 0 ? 'gzip' : null;
}

export async function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  const { brotli, gzip, constants } = await zlib();
  // Brotli quality 5: ~gzip's speed with a smaller result; 11 (zlib's default) takes seconds on a
  // 10,000-event feed.
  return coding === 'br'
    ? brotli(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 5,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        },
      })
    : gzip(body, { level: 6 });
}
