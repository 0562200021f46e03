/**
 * Is this body the calendar we asked for? Feeds fail in ways that still answer 200: a login page
 * (a private Google calendar link gone stale, an expired SharePoint session), a JSON error from an API
 * gateway, a captive portal. Read as a calendar, such a body has no events, and an empty source would mean
 * "delete everything". So the first bytes are checked before the reader sees any: an .ics must begin with
 * BEGIN:VCALENDAR (RFC 5545 3.4; a BOM and blank lines tolerated), a CSV must not look like HTML or JSON.
 * The Content-Type alone is not trusted: many servers send .ics as text/plain or application/octet-stream.
 */
import { SOURCE_ERRORS, SourceFetchError } from './errors.ts';

export type SourceType = 'ics' | 'csv';

/** Bytes looked at: enough for a BOM, blank lines and `BEGIN:VCALENDAR` or `<!DOCTYPE html>`. */
const PEEK = 256;

/** Checks the start of `body` and returns a body that yields every byte, the peeked ones first. */
export async function checkBody(
  body: AsyncIterable<Uint8Array>,
  at: { type: SourceType; url: string; contentType: string },
): Promise<AsyncIterable<Uint8Array>> {
  const iterator = body[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < PEEK) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    head.push(next.value);
    size += next.value.length;
  }
  const start = Buffer.concat(head).subarray(0, PEEK).toString('latin1');
  const problem = notCalendar(start, at.type, at.contentType);
  if (problem) {
    await iterator.return?.();
    throw new SourceFetchError(SOURCE_ERRORS.notCalendar, at.url, problem, 200);
  }
  return (async function* () {
    yield* head;
    if (done) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })();
}

/** Why `start` (the first bytes, latin1) is not an .ics or CSV body, or undefined when it may be. */
export function notCalendar(start: string, type: SourceType, contentType: string): string | undefined {
  // UTF-8 BOM (as latin1), UTF-16 BOMs, then blank lines.
  const text = start
    .replace(/^(?:\u00ef\u00bb\u00bf|\u00fe\u00ff|\u00ff\u00fe)/, '')
    .split('\u0000')
    .join('');
  const trimmed = text.trimStart();
  const type_ = contentType ? ` (Content-Type ${contentType.split(';')[0]})` : '';
  const looks = /^<(?:!doctype\s+html|html|head|body|\?xml|!--)/i.test(trimmed)
    ? 'an HTML page, such as a login page'
    : /^[{[]/.test(trimmed) || /\bjson\b/i.test(contentType)
      ? 'JSON, such as an API error'
      : undefined;
  if (type === 'ics') {
    if (/^BEGIN:VCALENDAR/i.test(trimmed)) return undefined;
    if (trimmed === '') return `expected an iCalendar body, got an empty one${type_}`;
    return `expected an iCalendar body starting with BEGIN:VCALENDAR, got ${looks ?? `"${preview(trimmed)}"`}${type_}`;
  }
  if (looks) return `expected a CSV body, got ${looks}${type_}`;
  if (/^text\/html\b/i.test(contentType)) return `expected a CSV body, got an HTML page${type_}`;
  return undefined;
}

const preview = (s: string) => s.slice(0, 40).replace(/\s+/g, ' ');
