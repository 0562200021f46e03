/**
 * The seam between the writer's logic (paths, retries, paging) and how a request travels: over HTTP
 * (http-transport.ts, undici) or into our own app in-process (src/embedded/local-target.ts, `app.inject`). A transport sends
 * one request once; it neither retries nor interprets statuses, and throws only when no answer came.
 */

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface TransportRequest {
  method: Method;
  /** Below the API root, namespace included: `/calendar/events/v1/events/12`. */
  path: string;
  query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Sent as JSON. */
  body?: unknown;
}

export interface TransportResponse {
  status: number;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Readonly<Record<string, string>>;
  text: string;
  /**
   * The body's JSON document itself, when the transport has it without parsing `text` (the local target:
   * the in-process caller's answer): what `JSON.parse(text)` gives, taken by `interpret` instead. Read only.
   */
  json?: unknown;
}

export interface Transport {
  /** For messages: `https://site/wp-json`, `local data/calendar.db`. */
  readonly label: string;
  send(req: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** `?a=1&b=2` of the defined entries, or `''`. */
export function queryString(query: TransportRequest['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

/** Header values of Node/undici (string | string[] | undefined) as plain strings. */
export function flattenHeaders(
  headers: Readonly<Record<string, string | string[] | number | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  }
  return out;
}
