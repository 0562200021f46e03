/**
 * Reading sideloaded images and making WordPress's intermediate sizes (contract A.4: `sizes`
 * keyed by size name, never `full`), with sharp (libvips, prebuilt for each platform).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Sharp from 'sharp';
import type { ImageSizeRecord } from '../../store/store.ts';

const FORMAT_MIME: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
};

/** WordPress's defaults (Settings › Media); 0 = unbounded. Only `thumbnail` is cropped. */
const SIZES = [
  { name: 'thumbnail', width: 150, height: 150, crop: true },
  { name: 'medium', width: 300, height: 300, crop: false },
  { name: 'medium_large', width: 768, height: 0, crop: false },
  { name: 'large', width: 1024, height: 1024, crop: false },
] as const;

export interface ImageInfo {
  width: number;
  height: number;
  mime: string;
}

// libvips is loaded on the first image, not at start: most processes (an import, a server that is only
// read) never touch one, and it adds ~25 MB to every process that loads it.
let loaded: Promise<typeof Sharp> | undefined;
const sharp = async () => (loaded ??= import('sharp').then((m) => m.default));

/** Dimensions and type of an image, or null if the bytes are not a JPEG, PNG, GIF or WebP. */
export async function readImage(body: Buffer): Promise<ImageInfo | null> {
  try {
    const meta = await (await sharp())(body).metadata();
    const mime = FORMAT_MIME[meta.format ?? ''];
    return mime && meta.width && meta.height ? { width: meta.width, height: meta.height, mime } : null;
  } catch {
    return null;
  }
}

/**
 * Writes `<base>-<w>x<h>.<ext>` next to the original for every size the image exceeds, as
 * WordPress does; an image that fits inside a size's box gets no copy of that size.
 */
export async function makeSizes(
  body: Buffer,
  info: ImageInfo,
  dir: string,
  base: string,
  ext: string,
): Promise<Record<string, ImageSizeRecord>> {
  const sizes: Record<string, ImageSizeRecord> = {};
  for (const size of SIZES) {
    const fits = (!size.width || info.width <= size.width) && (!size.height || info.height <= size.height);
    if (fits) continue;
    const { data, info: out } = await (await sharp())(body, { animated: false })
      .resize(size.width || null, size.height || null, {
        fit: size.crop ? 'cover' : 'inside',
        withoutEnlargement: true,
      })
      .toBuffer({ resolveWithObject: true });
    const file = `${base}-${out.width}x${out.height}.${ext}`;
    await writeFile(join(dir, file), data);
    sizes[size.name] = {
      width: out.width,
      height: out.height,
      'mime-type': info.mime,
      filesize: data.length,
      file,
    };
  }
  return sizes;
}
