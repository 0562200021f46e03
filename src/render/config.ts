/**
 * What rendering records to the wire needs to know of the site that serves them, with its defaults: the
 * server's configuration extends it (src/server/config.ts), and an export from a store file resolves it
 * alone.
 */
import { normalizeTimezone } from '../model/timezone.ts';

export interface RenderConfigOptions {
  /** Public site URL for permalinks (`{site}`); default `http://127.0.0.1:8080`. */
  siteUrl?: string;
  /** Public API root (`{base}`); default the site URL. Its path is the mount prefix. */
  apiBase?: string;
  /** Site time zone for publication dates and list bounds; default `UTC` (IANA or `UTC±H`). */
  siteTimezone?: string;
  /** Currency shown for costs without a symbol (A.6); default `$`, prefix, `USD`. */
  currency?: { symbol: string; position: 'prefix' | 'postfix'; code: string };
  /**
   * Bytes of rendered event JSON kept for reuse by lists (src/render/event-json.ts); default
   * 64,000,000 (the fragments of 10,000 typical events take ~40 MB).
   */
  renderCacheBytes?: number;
  /**
   * Whether that includes the JSON of each event's own fields; default true. A bulk writer that reads
   * nothing back (the local import target) renders each event once, but the same few venues, organizers
   * and terms in thousands of answers: it keeps only those.
   */
  renderCacheEvents?: boolean;
}

export interface RenderConfig {
  siteUrl: string;
  apiBase: string;
  /** `{host}`: host name + path of the site, no scheme or port (A.0 `global_id`). */
  host: string;
  siteTimezone: string;
  currency: { symbol: string; position: 'prefix' | 'postfix'; code: string };
  renderCacheBytes: number;
  renderCacheEvents: boolean;
}

export const trimSlash = (s: string) => s.replace(/\/+$/, '');

export function resolveRenderConfig(o: RenderConfigOptions): Readonly<RenderConfig> {
  const siteUrl = trimSlash(o.siteUrl ?? 'http://127.0.0.1:8080');
  const apiBase = trimSlash(o.apiBase ?? siteUrl);
  const site = new URL(siteUrl);
  const siteTimezone = normalizeTimezone(o.siteTimezone ?? 'UTC');
  if (!siteTimezone) throw new Error(`Invalid site time zone: ${o.siteTimezone}`);
  return Object.freeze({
    siteUrl,
    apiBase,
    host: trimSlash(site.hostname + site.pathname),
    siteTimezone,
    currency: o.currency ?? { symbol: '$', position: 'prefix' as const, code: 'USD' },
    renderCacheBytes: o.renderCacheBytes ?? 64_000_000,
    renderCacheEvents: o.renderCacheEvents ?? true,
  });
}
