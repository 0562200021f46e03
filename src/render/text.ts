/**
 * Text helpers for the non-JSON renderers: the wire carries HTML (contract A.0: `title` with `&#038;`,
 * `description`/`excerpt` rendered like WordPress wpautop), while CSV wants the raw text and iCalendar
 * plain text.
 *
 * Public: `decodeEntities`, `unautop`. Plain text from wire HTML is `htmlToText` in src/model/html.ts.
 */
import { NAMED_ENTITIES } from '../model/html.ts';

const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

function fromCodePoint(cp: number, original: string): string {
  // Surrogates and out-of-range references are not characters; keep the text as written.
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return original;
  return String.fromCodePoint(cp);
}

/** Decodes HTML character references (`&#038;`, `&#x27;`, `&amp;`, `&rsquo;` …). */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(
    ENTITY,
    (m, dec: string | undefined, hex: string | undefined, name: string | undefined) => {
      if (dec !== undefined) return fromCodePoint(Number.parseInt(dec, 10), m);
      if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16), m);
      return NAMED_ENTITIES[name!] ?? m;
    },
  );
}

/**
 * Undoes the wpautop rendering of contract A.0 to get the stored raw text back:
 * `<p>Line one<br />\nline two</p>\n<p>Para two</p>` → `Line one\nline two\n\nPara two`.
 * Only the markup wpautop adds is removed (`<p>`, `</p>`, `<br />` followed by a newline); other HTML
 * and entities stay as the author wrote them. A `<p>` the author typed in the raw text is removed too —
 * the wire value cannot tell it apart.
 */
export function unautop(html: string): string {
  if (!html.includes('<')) return html;
  return html
    .replace(/<br \/>\n/g, '\n')
    .replace(/<\/p>\n<p>/g, '\n\n')
    .replace(/<\/p>\n/g, '\n\n') // paragraph followed by a block element wpautop left unwrapped
    .replace(/\n<p>/g, '\n\n') // block element followed by a paragraph
    .replace(/^<p>/, '')
    .replace(/<\/p>$/, '');
}
