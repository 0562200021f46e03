/** The two term shapes (A.3): embedded in events, and at the term endpoints. */
import { TAXONOMIES, type TermKind } from '../model/index.ts';
import type { TermRecord } from '../store/store.ts';
import type { RenderConfig } from './config.ts';

const collection = (kind: TermKind, cfg: RenderConfig) => `${cfg.apiBase}/calendar/events/v1/${kind}`;

function termUrls(t: TermRecord, cfg: RenderConfig) {
  const base = collection(t.kind, cfg);
  const urls: Record<string, string> = { self: `${base}/${t.id}`, collection: base };
  if (t.parent) urls.up = `${base}/${t.parent}`;
  return urls;
}

export function renderEmbeddedTerm(t: TermRecord, cfg: RenderConfig) {
  return {
    name: t.name,
    slug: t.slug,
    term_group: 0,
    term_taxonomy_id: t.id,
    taxonomy: TAXONOMIES[t.kind],
    description: t.description,
    parent: t.parent,
    count: t.count,
    filter: 'raw',
    id: t.id,
    urls: termUrls(t, cfg),
  };
}

/** `ancestors` are the parent chain's slugs, root first, for the category permalink. */
export function renderTerm(t: TermRecord, cfg: RenderConfig, ancestors: string[], withLinks: boolean) {
  const urls = termUrls(t, cfg);
  const out: Record<string, unknown> = {
    id: t.id,
    count: t.count,
    description: t.description,
    name: t.name,
    slug: t.slug,
    taxonomy: TAXONOMIES[t.kind],
  };
  if (t.kind === 'categories') out.parent = t.parent;
  out.meta = [];
  out.url =
    t.kind === 'categories'
      ? `${cfg.siteUrl}/events/category/${[...ancestors, t.slug].join('/')}/`
      : `${cfg.siteUrl}/tag/${t.slug}/`;
  out.urls = urls;
  if (withLinks) {
    const links: Record<string, unknown> = {
      self: [{ href: urls.self }],
      collection: [{ href: urls.collection }],
    };
    if (urls.up) links.up = [{ embeddable: true, href: urls.up }];
    out._links = links;
  }
  return out;
}
