/**
 * `image` on writes (contract B.6.2): an attachment id, or an http(s) URL that reuses the
 * attachment with that URL (or sideloaded from it) or is fetched and stored as a new one.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { canUploadImage } from '../../model/capabilities.ts';
import { forbidden, invalidParam } from '../errors.ts';
import type { WriteContext } from './context.ts';
import { makeSizes, readImage } from './image-sizes.ts';

const MIME_EXT: Record<string, string> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/gif': 'gif',
  'image/webp': 'webp',
};
/** What an `image` value resolves to before any write: an attachment id, none, or a URL to fetch. */
export type ImagePlan = number | null | { fetch: string };

/**
 * `image` checked without side effects: an unknown or non-image id is a 400, a URL of no
 * stored attachment needs upload rights (403) and is left to `sideloadImage`.
 */
export async function planImage(
  ctx: WriteContext,
  value: string | number | null | undefined,
): Promise<ImagePlan> {
  if (value === undefined || value === null || value === '' || value === 0 || value === '0') return null;
  if (typeof value === 'number' || /^\d+$/.test(value)) {
    const a = await ctx.store.getAttachment(Number(value));
    if (!a) throw invalidParam('image', 'image is not a valid image attachment id.');
    return a.id;
  }
  if (!/^https?:\/\//i.test(value))
    throw invalidParam('image', 'image must be an attachment id or an http(s) URL.');
  const known = await ctx.store.findAttachmentByUrl(value);
  if (known) return known.id;
  if (!canUploadImage(ctx.caller)) throw forbidden(ctx.caller === null, ['image']);
  return { fetch: value };
}

/** Fetches an image URL into the uploads folder and stores it as a new attachment. */
export async function sideloadImage(ctx: WriteContext, url: string): Promise<number> {
  return (await sideload(ctx, url)).id;
}

const IMAGE_TYPES: ReadonlySet<string> = new Set(Object.keys(MIME_EXT));

async function sideload(ctx: WriteContext, url: string) {
  const dir = ctx.cfg.uploadsDir;
  if (!dir) throw invalidParam('image', 'image: uploads by URL are not enabled on this server.');
  // Loaded with the first image fetched (as undici is, there): an import into the local target never
  // sideloads one, and ipaddr.js is ~2 MB of a process's memory (issue 17).
  const { FetchProblem, fetchImage } = await import('./image-fetch.ts');
  let body: Buffer;
  try {
    ({ body } = await fetchImage(url, {
      maxBytes: ctx.cfg.imageMaxBytes,
      allowPrivate: ctx.cfg.allowPrivateImageHosts,
      accept: IMAGE_TYPES,
    }));
  } catch (err) {
    const why = err instanceof FetchProblem ? err.message : 'no answer';
    throw invalidParam('image', `image: could not fetch ${url}: ${why}`);
  }
  const info = await readImage(body);
  if (!info) throw invalidParam('image', `image: ${url} is not a readable image.`);
  const ext = MIME_EXT[info.mime];
  const month = ctx.now.slice(0, 7).replace('-', '/');
  const base = randomUUID();
  const folder = join(dir, month);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, `${base}.${ext}`), body);
  return ctx.store.insertAttachment({
    kind: 'attachment',
    author: ctx.caller!.id,
    url: `${ctx.cfg.siteUrl}/uploads/${month}/${base}.${ext}`,
    source_url: url,
    mime: info.mime,
    width: info.width,
    height: info.height,
    filesize: body.length,
    sizes: await makeSizes(body, info, folder, base, ext),
    date_utc: ctx.now,
  });
}
