/** Venue and organizer representations (A.2): empty keys omitted, `json_ld` on singles. */
import { escapeTitle, htmlToText, wpautop } from '../model/html.ts';
import type { AttachmentRecord, LinkedRecord, OrganizerRecord, VenueRecord } from '../store/store.ts';
import type { RenderConfig } from './config.ts';
import { globalIds, permalink, postDates, renderImage } from './post.ts';

const isEmpty = (v: unknown) =>
  v === '' ||
  v === '0' ||
  v === 0 ||
  v === false ||
  v === null ||
  v === undefined ||
  (Array.isArray(v) && !v.length);

function compact(o: Record<string, unknown>): Record<string, unknown> {
  for (const k of Object.keys(o)) if (isEmpty(o[k])) delete o[k];
  return o;
}

/** Explicit value, else `state` in the US (or without country), else `province` [live]. */
export function stateprovince(v: VenueRecord): string {
  if (v.stateprovince) return v.stateprovince;
  return !v.country || v.country === 'United States' ? v.state : v.province;
}

function head(p: LinkedRecord, cfg: RenderConfig) {
  return {
    id: p.id,
    author: String(p.author),
    status: p.status,
    ...postDates(p, cfg),
    url: permalink(p, cfg),
  };
}

export function renderVenue(
  v: VenueRecord,
  image: AttachmentRecord | undefined,
  cfg: RenderConfig,
  single: boolean,
): Record<string, unknown> {
  const out = compact({
    ...head(v, cfg),
    venue: escapeTitle(v.venue),
    description: wpautop(v.description),
    slug: v.slug,
    image: renderImage(image),
    address: v.address,
    city: v.city,
    country: v.country,
    province: v.province,
    state: v.state,
    zip: v.zip,
    phone: v.phone,
    website: v.website,
    stateprovince: stateprovince(v),
  });
  if (single) out.json_ld = venueJsonLd(v);
  out.show_map = v.show_map;
  out.show_map_link = v.show_map_link;
  return Object.assign(out, globalIds(v.id, cfg));
}

export function renderOrganizer(
  o: OrganizerRecord,
  image: AttachmentRecord | undefined,
  cfg: RenderConfig,
  single: boolean,
): Record<string, unknown> {
  const out = compact({
    ...head(o, cfg),
    organizer: escapeTitle(o.organizer),
    description: wpautop(o.description),
    slug: o.slug,
    image: renderImage(image),
    phone: o.phone,
    website: o.website,
    email: o.email,
  });
  if (single) out.json_ld = organizerJsonLd(o);
  return Object.assign(out, globalIds(o.id, cfg));
}

export function renderLinked(
  p: LinkedRecord,
  image: AttachmentRecord | undefined,
  cfg: RenderConfig,
  single: boolean,
): Record<string, unknown> {
  return p.kind === 'venue' ? renderVenue(p, image, cfg, single) : renderOrganizer(p, image, cfg, single);
}

export function venueJsonLd(v: VenueRecord): Record<string, unknown> {
  return {
    '@type': 'Place',
    name: v.venue,
    description: htmlToText(v.description),
    url: '',
    address: {
      '@type': 'PostalAddress',
      streetAddress: v.address,
      addressLocality: v.city,
      addressRegion: stateprovince(v),
      postalCode: v.zip,
      addressCountry: v.country,
    },
    telephone: v.phone,
    sameAs: v.website,
  };
}

export function organizerJsonLd(o: OrganizerRecord): Record<string, unknown> {
  return {
    '@type': 'Person',
    name: o.organizer,
    description: htmlToText(o.description),
    url: o.website,
    telephone: o.phone,
    email: o.email,
    sameAs: o.website,
  };
}
