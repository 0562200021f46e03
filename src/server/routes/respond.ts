/**
 * Responses in the negotiated format (contract D6, B.12) and list envelopes (A.7): the
 * same document goes out as JSON, XML, iCalendar or CSV, with the `X-TEC-*` totals.
 */

import { ApiError } from '../errors.ts';
import { contentType, type MediaType, negotiate } from '../formats/negotiate.ts';
import { toXml } from '../formats/xml.ts';
import type { ApiReply, ApiRequest } from '../request.ts';

/** Other formats' renderers, whose libraries (ical-generator, csv-stringify) load when first asked for. */
export interface Alternatives {
  ical?: () => Promise<string>;
  csv?: () => Promise<string>;
}

/** What a route answers in when its spec names no formats. */
export const DEFAULT_FORMATS: readonly MediaType[] = ['json', 'xml'];

/** The format this request asks for among `available`, or null when none fits. */
export function negotiated(
  req: ApiRequest,
  available: readonly MediaType[] = DEFAULT_FORMATS,
): MediaType | null {
  const q = req.query as Record<string, unknown>;
  const ical = q.ical === '1' || q.ical === 'true';
  return negotiate(req.headers.accept, ical, available);
}

/** The format to answer in, decided before any work is done; 406 when none fits. */
export function pickFormat(req: ApiRequest, available: readonly MediaType[] = DEFAULT_FORMATS): MediaType {
  const type = negotiated(req, available);
  if (!type) {
    throw new ApiError(406, 'rest_not_acceptable', 'None of the requested media types is available.', {
      available: available.map(contentType),
    });
  }
  return type;
}

/**
 * The answer's body in `type`; JSON as the document itself, which the server (Fastify, without response
 * schemas) and the in-process caller serialise with `JSON.stringify`, and which the in-process caller also
 * hands to the local target as it is (src/server/in-process.ts), sparing it a parse of the text.
 */
export function send(reply: ApiReply, type: MediaType, doc: unknown, alt: Alternatives = {}) {
  reply.type(contentType(type));
  switch (type) {
    case 'xml':
      return toXml(doc);
    case 'ical':
      return alt.ical!();
    case 'csv':
      return alt.csv!();
    default:
      return typeof doc === 'object' && doc !== null ? doc : JSON.stringify(doc);
  }
}

/** A JSON document already serialised (list pages built from kept fragments, render/event-json.ts). */
export function sendJsonText<T extends string | Buffer>(reply: ApiReply, json: T): T {
  reply.type(contentType('json'));
  return json;
}

export interface ListPage {
  /** Collection URL without trailing slash. */
  collection: string;
  page: number;
  perPage: number;
  total: number;
  /** The query echoed after `page`, in order (events: `per_page` and the effective filters). */
  echo: [string, string | number | boolean][];
  /** Term lists echo only what was given, so `page` may be absent from `rest_url` (A.7). */
  pageInRestUrl?: boolean;
}

const enc = (v: string | number | boolean) => encodeURIComponent(String(v));

function pageUrl(p: ListPage, page: number | null): string {
  const parts: string[] = [];
  if (page !== null) parts.push(`page=${page}`);
  for (const [k, v] of p.echo) parts.push(`${k}=${enc(v)}`);
  return parts.length ? `${p.collection}/?${parts.join('&')}` : `${p.collection}/`;
}

/** `rest_url`, the neighbour links (omitted when there is no such page) and totals (A.7). */
export function paging(p: ListPage) {
  const totalPages = Math.ceil(p.total / p.perPage);
  const links: { rest_url: string; next_rest_url?: string; previous_rest_url?: string } = {
    rest_url: pageUrl(p, p.pageInRestUrl === false ? null : p.page),
  };
  if (p.page < totalPages) links.next_rest_url = pageUrl(p, p.page + 1);
  // Page 2's previous link has no `page` [live].
  if (p.page > 1) links.previous_rest_url = pageUrl(p, p.page - 1 === 1 ? null : p.page - 1);
  return { links, total: p.total, totalPages };
}

export function setTotals(reply: ApiReply, total: number, totalPages: number) {
  reply.header('x-tec-total', String(total)).header('x-tec-totalpages', String(totalPages));
}
