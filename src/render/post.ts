/** What events, venues and organizers render alike: dates, permalinks, global ids (A.0). */
import { utcToLocal } from '../model/datetime.ts';
import { PERMALINK_STATUSES } from '../model/index.ts';
import type { AttachmentRecord, EventRecord, LinkedRecord } from '../store/store.ts';
import type { RenderConfig } from './config.ts';

export const ZERO_DATE = '0000-00-00 00:00:00';

type Post = EventRecord | LinkedRecord;

const POST_TYPE = { event: 'tribe_events', venue: 'tribe_venue', organizer: 'tribe_organizer' } as const;

export function postDates(p: Post, cfg: RenderConfig) {
  // WordPress keeps `post_date_gmt` at zero while a draft's date floats (A.0).
  const floating = p.date_utc === null;
  const dateUtc = p.date_utc ?? p.modified_utc;
  return {
    date: utcToLocal(dateUtc, cfg.siteTimezone),
    date_utc: floating ? ZERO_DATE : dateUtc,
    modified: utcToLocal(p.modified_utc, cfg.siteTimezone),
    modified_utc: floating && !p.modified_set ? ZERO_DATE : p.modified_utc,
  };
}

export function permalink(p: Post, cfg: RenderConfig): string {
  return PERMALINK_STATUSES.has(p.status) && p.slug
    ? `${cfg.siteUrl}/${p.kind}/${p.slug}/`
    : `${cfg.siteUrl}/?post_type=${POST_TYPE[p.kind]}&p=${p.id}`;
}

export function globalIds(id: number, cfg: RenderConfig) {
  const gid = `${cfg.host}?id=${id}`;
  return { global_id: gid, global_id_lineage: [gid] };
}

export function renderImage(a: AttachmentRecord | undefined): Record<string, unknown> | false {
  if (!a) return false;
  const dot = a.url.lastIndexOf('.');
  const image: Record<string, unknown> = {
    url: a.url,
    id: a.id,
    extension: dot > 0 ? a.url.slice(dot + 1).toLowerCase() : '',
  };
  if (a.width) image.width = a.width;
  if (a.height) image.height = a.height;
  if (a.filesize) image.filesize = a.filesize;
  const names = Object.keys(a.sizes);
  if (names.length) {
    // Size files sit beside the original, as in wp-content/uploads.
    const folder = a.url.slice(0, a.url.lastIndexOf('/') + 1);
    const sizes: Record<string, unknown> = {};
    for (const name of names) {
      const { file, ...size } = a.sizes[name];
      sizes[name] = { ...size, url: folder + file };
    }
    image.sizes = sizes;
  }
  return image;
}
