// HTML rules of the contract (api-contract.md A.0), shared by server and client:
// - `sanitizeHtml`: what a write keeps of `description`/`excerpt` — an allow-list modelled on WordPress's
//   wp_kses_post (formatting, links, images, lists, headings, tables), built on the sanitize-html package.
// - `wpautop`: how stored raw text is rendered on output — a port of WordPress's wpautop()
//   (wp-includes/formatting.php), minus the <option>, <object> and <audio>/<video> clean-ups, because
//   sanitizeHtml never lets those tags through.
// - `stripTags` / `escapeTitle`: titles and venue/organizer names are plain text, output with `&` as `&#038;`.
// - `htmlToText`: rendered HTML back to plain text for JSON-LD and iCalendar DESCRIPTION.

import { createRequire } from 'node:module';
import type sanitize from 'sanitize-html';

const words = (list: string): string[] => list.split(' ');

const SANITIZE_OPTIONS: sanitize.IOptions = {
  allowedTags: words(
    'a abbr acronym address article aside b bdi bdo big blockquote br caption cite code col colgroup dd del ' +
      'details dfn div dl dt em figcaption figure footer h1 h2 h3 h4 h5 h6 header hgroup hr i img ins kbd li ' +
      'main mark nav ol p pre q s samp section small span strike strong sub summary sup table tbody td tfoot ' +
      'th thead time tr tt u ul var',
  ),
  allowedAttributes: {
    '*': ['class', 'id', 'title', 'lang', 'dir', 'style', 'aria-label', 'aria-hidden'],
    a: ['href', 'name', 'target', 'rel', 'hreflang'],
    img: ['src', 'alt', 'width', 'height', 'srcset', 'sizes', 'loading', 'decoding'],
    ol: ['start', 'reversed', 'type'],
    li: ['value'],
    table: ['border', 'cellpadding', 'cellspacing', 'width'],
    td: ['colspan', 'rowspan', 'headers', 'align'],
    th: ['colspan', 'rowspan', 'headers', 'scope', 'align'],
    col: ['span'],
    colgroup: ['span'],
    blockquote: ['cite'],
    q: ['cite'],
    del: ['cite', 'datetime'],
    ins: ['cite', 'datetime'],
    time: ['datetime'],
  },
  // wp_kses keeps `style` through safecss_filter_attr; we keep a few harmless properties with plain values,
  // so nothing like url(javascript:…) or expression() survives.
  allowedStyles: {
    '*': {
      color: [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s.,%]+\)$/i, /^[a-z]+$/i],
      'background-color': [/^#[0-9a-f]{3,8}$/i, /^rgba?\([\d\s.,%]+\)$/i, /^[a-z]+$/i],
      'text-align': [/^(?:left|right|center|justify)$/],
      'text-decoration': [/^[a-z -]+$/i],
      'font-weight': [/^(?:normal|bold|bolder|lighter|\d00)$/],
      'font-style': [/^(?:normal|italic|oblique)$/],
    },
  },
  // WordPress's wp_allowed_protocols(); javascript:, data: and vbscript: are thereby dropped.
  allowedSchemes: words(
    'http https ftp ftps mailto news irc irc6 ircs gopher nntp feed telnet mms rtsp sms svn tel fax xmpp webcal urn',
  ),
  allowedSchemesByTag: { img: ['http', 'https'] },
  // Dropped with their content: code, or fallback text that only makes sense inside the dropped element.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'select', 'noscript', 'iframe', 'object', 'embed'],
};

/**
 * sanitize-html (with postcss and htmlparser2: ~70 modules, ~7 MB) loaded by the first text with markup, not
 * by every module that imports this one (issue 17: load only what a run needs).
 */
let sanitizer: typeof sanitize | undefined;

/** Nothing sanitize-html would change: text without `<`, `>` or `&` comes out as it went in. */
const PLAIN = /^[^<>&]*$/;
/** No tag, and nothing the parser could read as tag-like. */
const NO_ANGLES = /^[^<>]*$/;
/** An `&` that may start a character reference (`&amp;`, `&copy`, `&#38;`): the parser decodes those. */
const REFERENCE_START = /&[A-Za-z0-9#]/;

/** Keeps what wp_kses_post would: formatting, links, images, lists, headings, tables; no scripts. */
export function sanitizeHtml(raw: string): string {
  // Most imported descriptions are plain text: they neither load nor run the parser, which cost ~20 µs
  // each (sanitize-html only re-escapes `&`, `<` and `>`; test/model/html.test.ts compares the two).
  if (PLAIN.test(raw)) return raw;
  // Nor does text whose every `&` is followed by something no reference starts with ("Arts & Crafts"):
  // the parser reads such an `&` as itself, which sanitize-html writes `&amp;`. One such description
  // loaded sanitize-html, postcss and htmlparser2 into an import (issue 17: ~3.5 MB of the sample's RSS).
  if (NO_ANGLES.test(raw) && !REFERENCE_START.test(raw)) return raw.replaceAll('&', '&amp;');
  sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitize;
  return sanitizer(raw, SANITIZE_OPTIONS);
}

const BLOCKS =
  '(?:table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|' +
  'blockquote|address|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|' +
  'figure|figcaption|details|menu|summary)';
const BLOCK_OPEN = new RegExp(`(<${BLOCKS}[\\s/>])`, 'g');
const BLOCK_CLOSE = new RegExp(`(</${BLOCKS}>)`, 'g');
const P_AROUND_BLOCK = new RegExp(`<p>\\s*(</?${BLOCKS}[^>]*>)\\s*</p>`, 'g');
const P_BEFORE_BLOCK = new RegExp(`<p>\\s*(</?${BLOCKS}[^>]*>)`, 'g');
const P_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^>]*>)\\s*</p>`, 'g');
const BR_AFTER_BLOCK = new RegExp(`(</?${BLOCKS}[^>]*>)\\s*<br />`, 'g');
// WordPress's wp_html_split(): comments, then anything from `<` to the next `>`.
const HTML_SPLIT = /(<!--[\s\S]*?(?:-->|$)|<[^>]*>?)/;
const NEWLINE_MARK = ' <!-- wpnl --> ';

/**
 * WordPress wpautop(): blank-line-separated paragraphs → `<p>…</p>` joined by `\n`, single newlines →
 * `<br />\n`, block-level HTML left unwrapped, `<pre>` untouched; the result is trimmed.
 *
 * Text without a `<` (most imported descriptions) skips the steps that only act on markup it would have
 * had: every one of them finds nothing in such text (the paragraphs' own `<p>` and `</p>` never give them
 * a match; test/model/html.test.ts compares both ways on random text). That is ~2/3 of the work.
 */
export function wpautop(raw: string): string {
  return autop(raw, raw.includes('<'));
}

/** wpautop with every step, whatever the text: the tests compare the two. */
export const wpautopEveryStep = (raw: string): string => autop(raw, true);

function autop(raw: string, markup: boolean): string {
  if (raw.trim() === '') return '';
  const pres: string[] = [];
  let text = `${raw}\n`;
  if (markup) {
    text = hidePre(text, pres);
    text = text.replace(/<br\s*\/?>\s*<br\s*\/?>/g, '\n\n');
    text = text.replace(BLOCK_OPEN, '\n\n$1').replace(BLOCK_CLOSE, '$1\n\n');
    text = text.replace(/(<hr\s*?\/?>)/g, '$1\n\n');
  }
  text = text.replace(/\r\n|\r/g, '\n');
  if (markup) {
    text = text
      .split(HTML_SPLIT)
      .map((part, i) => (i % 2 === 1 ? part.replaceAll('\n', NEWLINE_MARK) : part))
      .join('');
    if (text.includes('<figcaption')) {
      text = text.replace(/\s*(<figcaption[^>]*>)/g, '$1').replace(/<\/figcaption>\s*/g, '</figcaption>');
    }
  }
  text = text.replace(/\n\n+/g, '\n\n');
  text = text
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${paragraph.replace(/^\n+|\n+$/g, '')}</p>\n`)
    .join('');
  text = text.replace(/<p>\s*<\/p>/g, '');
  if (markup) {
    text = text.replace(/<p>([^<]+)<\/(div|address|form)>/g, '<p>$1</p></$2>');
    text = text.replace(P_AROUND_BLOCK, '$1');
    text = text.replace(/<p>(<li.+?)<\/p>/g, '$1');
    text = text
      .replace(/<p><blockquote([^>]*)>/gi, '<blockquote$1><p>')
      .replaceAll('</blockquote></p>', '</p></blockquote>');
    text = text.replace(P_BEFORE_BLOCK, '$1').replace(P_AFTER_BLOCK, '$1');
    // Newlines inside these elements are code, not line breaks.
    text = text.replace(/<(script|style|svg|math).*?<\/\1>/gs, (m) =>
      m.replaceAll('\n', '<WPPreserveNewline />'),
    );
    text = text.replace(/<br>|<br\/>/g, '<br />');
  }
  text = text.replace(/(?<!<br \/>)\s*\n/g, '<br />\n');
  if (markup) text = text.replaceAll('<WPPreserveNewline />', '\n');
  text = text.replace(BR_AFTER_BLOCK, '$1');
  text = text.replace(/<br \/>(\s*<\/?(?:p|li|div|dl|dd|dt|th|pre|td|ul|ol)[^>]*>)/g, '$1');
  text = text.replace(/\n<\/p>(?=\n?$)/, '</p>');
  if (!markup) return text.trim();
  text = text.replace(/<pre wp-pre-tag-(\d+)><\/pre>/g, (_, i: string) => pres[Number(i)]);
  return text.replaceAll(NEWLINE_MARK, '\n').replaceAll('<!-- wpnl -->', '\n').trim();
}

// wpautop leaves <pre> blocks alone: swap them for placeholders first (WordPress does the same).
function hidePre(text: string, pres: string[]): string {
  if (!text.includes('<pre')) return text;
  const parts = text.split('</pre>');
  const last = parts.pop() ?? '';
  let out = '';
  for (const part of parts) {
    const start = part.indexOf('<pre');
    if (start === -1) {
      out += part;
      continue;
    }
    out += `${part.slice(0, start)}<pre wp-pre-tag-${pres.length}></pre>`;
    pres.push(`${part.slice(start)}</pre>`);
  }
  return out + last;
}

// A `<` starts a tag only before a letter, `/`, `!` or `?` — like PHP's strip_tags, "5 < 6" stays text.
const TAG = /<(?=[a-zA-Z/!?])[^>]*>/g;
const INVISIBLE = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>|<!--[\s\S]*?-->/gi;

/** Plain text for titles and names: tags (and script/style bodies) removed, entities decoded, trimmed. */
export function stripTags(raw: string): string {
  return decodeEntities(raw.replace(INVISIBLE, '').replace(TAG, '')).trim();
}

/** Output form of a plain-text title or name: `&` → `&#038;` (as WordPress prints it), `<`, `>` escaped. */
export function escapeTitle(plain: string): string {
  return plain.replace(/[&<>]/g, (c) => (c === '&' ? '&#038;' : c === '<' ? '&lt;' : '&gt;'));
}

const PARAGRAPH_TAGS =
  /<\/?(?:p|h[1-6]|blockquote|pre|table|ul|ol|dl|figure|hr|section|article|header|footer|aside|nav|address|details)\b[^>]*>/gi;
const LINE_TAGS = /<\/?(?:div|li|tr|dt|dd|figcaption|summary|caption)\b[^>]*>/gi;
const PARAGRAPH_BREAK = '\uE001';
const LINE_BREAK = '\uE000';
const BREAK_RUN = /[ \uE000\uE001]*[\uE000\uE001][ \uE000\uE001]*/g;

/**
 * Rendered HTML → plain text: `<br>` → newline, paragraphs and other blocks separated by a blank line,
 * list items and table rows by a newline, cells by a space; tags removed, entities decoded, trimmed.
 * Source whitespace collapses as a browser would (also inside <pre>: good enough for a DESCRIPTION).
 */
export function htmlToText(html: string): string {
  const text = html
    .replace(INVISIBLE, '')
    .replace(/\s+/g, ' ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(PARAGRAPH_TAGS, PARAGRAPH_BREAK)
    .replace(LINE_TAGS, LINE_BREAK)
    .replace(/<\/t[dh]\s*>/gi, ' ')
    .replace(TAG, '')
    // `</li> <li>` is one break, not two: merge adjacent block edges, the strongest wins.
    .replace(BREAK_RUN, (run) => (run.includes(PARAGRAPH_BREAK) ? '\n\n' : '\n'));
  return decodeEntities(text)
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/**
 * The one form in which what a site shows is compared with what was sent (contract C.22). Sites return
 * titles, names and descriptions rendered: entities (`&#8217;`, `&amp;`), paragraphs and `<br />`, and
 * WordPress's texturizer (straight quotes → curly, `--` → en dash, `...` → ellipsis, ` (tm)` → ™, `2x4` →
 * 2×4). Both sides are taken to plain text, typographic variants folded to their ASCII forms and blanks
 * collapsed; case is kept (a change of case is a change).
 */
export function comparableText(value: string): string {
  return htmlToText(value)
    .replace(/\u2122/g, '(tm)')
    .normalize('NFKC')
    .replace(TYPOGRAPHIC, (c) => TYPOGRAPHIC_FOLD[c] ?? c)
    .replace(/''|``/g, '"')
    .replace(/-{2,}/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

// biome-ignore format: a table reads better packed
const TYPOGRAPHIC_FOLD: Record<string, string> = {
  '\u2018': "'", '\u2019': "'", '\u201a': "'", '\u201b': "'", '\u2032': "'", '\u2035': "'",
  '\u201c': '"', '\u201d': '"', '\u201e': '"', '\u201f': '"', '\u2033': '"', '\u2036': '"',
  '\u2010': '-', '\u2011': '-', '\u2012': '-', '\u2013': '-', '\u2014': '-', '\u2015': '-', '\u2212': '-',
  '\u00d7': 'x', '\u00ad': '',
};
const TYPOGRAPHIC = new RegExp(`[${Object.keys(TYPOGRAPHIC_FOLD).join('')}]`, 'g');

// The named entities WordPress and editors actually produce; others are left as typed.
// biome-ignore format: a table reads better packed
export const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0', shy: '\u00ad',
  ndash: '–', mdash: '—', hellip: '…', lsquo: '‘', rsquo: '’', sbquo: '‚', ldquo: '“', rdquo: '”',
  bdquo: '„', laquo: '«', raquo: '»', lsaquo: '‹', rsaquo: '›', bull: '•', middot: '·', prime: '′',
  copy: '©', reg: '®', trade: '™', euro: '€', pound: '£', yen: '¥', cent: '¢', curren: '¤', sect: '§',
  para: '¶', deg: '°', plusmn: '±', times: '×', divide: '÷', frac12: '½', frac14: '¼', frac34: '¾',
  iexcl: '¡', iquest: '¿', szlig: 'ß', eacute: 'é', egrave: 'è', aacute: 'á', agrave: 'à', ouml: 'ö',
  auml: 'ä', uuml: 'ü', Ouml: 'Ö', Auml: 'Ä', Uuml: 'Ü', ccedil: 'ç', ntilde: 'ñ',
};

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(
    /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g,
    (m, dec, hex, name) => {
      if (name !== undefined) return NAMED_ENTITIES[name] ?? m;
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex, 16);
      const valid = code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff);
      return valid ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}
