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
  const looks = looksLike(start, contentType);
  if (type === 'ics') {
    if (/^BEGIN:VCALENDAR/i.test(trimmed)) return undefined;
    if (trimmed === '') return `expected an iCalendar body, got an empty one${type_}`;
    return `expected an iCalendar body starting with BEGIN:VCALENDAR, got ${looks ?? `"${preview(trimmed)}"`}${type_}`;
  }
  if (looks) return `expected a CSV body, got ${looks}${type_}`;
  if (/^text\/html\b/i.test(contentType)) return `expected a CSV body, got an HTML page${type_}`;
  return undefined;
}

/**
 * What `start` (the first bytes, latin1) looks like when it is not text a calendar can be in: an HTML
 * page, JSON, or a binary file (a ZIP such as an Excel workbook, a PDF, an image…); undefined when it is
 * plain text. UTF-16 (with its BOM) is text.
 */
export function looksLike(start: string, contentType = ''): string | undefined {
  const utf16 = /^(?:\u00fe\u00ff|\u00ff\u00fe)/.test(start);
  const text = start
    .replace(/^(?:\u00ef\u00bb\u00bf|\u00fe\u00ff|\u00ff\u00fe)/, '')
    .split('\u0000')
    .join('');
  const trimmed = text.trimStart();
  if (start.startsWith('PK\u0003\u0004'))
    return 'a ZIP archive (an Excel or LibreOffice file? save it as CSV)';
  if (start.startsWith('%PDF')) return 'a PDF document';
  // Control characters other than tab, line breaks and form feed do not occur in text files.
  const controls = utf16 ? 0 : [...start].filter(isControl).length;
  if (controls > Math.max(2, start.length / 20)) return 'a binary file';
  if (/^<(?:!doctype\s+html|html|head|body|\?xml|!--)/i.test(trimmed))
    return 'an HTML page, such as a login page or a saved web page';
  if (/^[{[]/.test(trimmed) || /\bjson\b/i.test(contentType)) return 'JSON, such as an API error';
  return undefined;
}

/** Bytes 0–8, 14–26 and 28–31: not tab, line feed, vertical tab, form feed, carriage return or escape. */
const isControl = (c: string) => {
  const code = c.charCodeAt(0);
  return code < 32 && !(code >= 9 && code <= 13) && code !== 27;
};

const preview = (s: string) => s.slice(0, 40).replace(/\s+/g, ' ');
