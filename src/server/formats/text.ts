/**
 * Text helpers for the non-JSON renderers: the wire carries HTML (contract A.0: `title` with `&#038;`,
 * `description`/`excerpt` rendered like WordPress wpautop), while CSV wants the raw text and iCalendar
 * plain text.
 *
 * Public: `decodeEntities`, `unautop`, `htmlToText`.
 */

// Named entities WordPress and our renderer emit (esc_html, wptexturize, sanitize-html), plus the common
// Latin-1 ones. Numeric references cover everything else; unknown names are left as written.
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  sbquo: '\u201a',
  ldquo: '\u201c',
  rdquo: '\u201d',
  bdquo: '\u201e',
  hellip: '\u2026',
  laquo: '\u00ab',
  raquo: '\u00bb',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  euro: '\u20ac',
  pound: '\u00a3',
  yen: '\u00a5',
  cent: '\u00a2',
  deg: '\u00b0',
  middot: '\u00b7',
  bull: '\u2022',
  times: '\u00d7',
  shy: '\u00ad',
};

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
      return NAMED[name!] ?? m;
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

const BLOCK_BREAK = /<\/?(?:p|div|br|li|ul|ol|h[1-6]|blockquote|pre|table|tr)\b[^>]*>/gi;

/**
 * Plain text from wire HTML, for iCalendar `DESCRIPTION`: wpautop undone, line breaks kept for block
 * elements, every other tag removed, entities decoded, runs of more than one blank line squeezed.
 */
export function htmlToText(html: string): string {
  if (!html.includes('<') && !html.includes('&')) return html;
  return decodeEntities(
    unautop(html)
      .replace(BLOCK_BREAK, (tag) => (/^<br/i.test(tag) ? '\n' : tag.startsWith('</') ? '\n' : ''))
      .replace(/<[^>]*>/g, ''),
  )
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
