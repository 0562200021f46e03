import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  escapeTitle,
  htmlToText,
  sanitizeHtml,
  stripTags,
  wpautop,
  wpautopEveryStep,
} from '../../src/model/html.ts';

describe('wpautop', () => {
  it('renders the A.0 example exactly', () => {
    expect(wpautop('Line one\nline two\n\nPara two')).toBe(
      '<p>Line one<br />\nline two</p>\n<p>Para two</p>',
    );
  });

  it('gives text without markup what every step gives it', () => {
    // Characters the steps look for, besides `<`: line breaks, spaces, `>`, `/`, and the words of their tags.
    const pieces = [
      '\n',
      '\r',
      '\r\n',
      ' ',
      '\t',
      '\u00a0',
      '>',
      '/',
      'p',
      'br',
      'li',
      'pre',
      'wpnl',
      '!--',
      'a',
      'Z',
      '&',
    ];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        expect(wpautop(text)).toBe(wpautopEveryStep(text));
      }),
      { numRuns: 5000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (s) => {
        const text = s.replaceAll('<', '');
        expect(wpautop(text)).toBe(wpautopEveryStep(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('returns "" for empty and blank text', () => {
    expect(wpautop('')).toBe('');
    expect(wpautop(' \n\n ')).toBe('');
  });

  it('wraps a single line and trims the result', () => {
    expect(wpautop('Full description')).toBe('<p>Full description</p>');
    expect(wpautop('\n\nShort\n\n')).toBe('<p>Short</p>');
  });

  it('treats CRLF and runs of blank lines like single blank lines', () => {
    expect(wpautop('One\r\n\r\n\r\n\r\nTwo\r\nthree')).toBe('<p>One</p>\n<p>Two<br />\nthree</p>');
  });

  it('does not wrap block-level HTML in paragraphs', () => {
    expect(wpautop('<ul>\n<li>One</li>\n<li>Two</li>\n</ul>')).toBe(
      '<ul>\n<li>One</li>\n<li>Two</li>\n</ul>',
    );
    expect(wpautop('<h2>Title</h2>\nText')).toBe('<h2>Title</h2>\n<p>Text</p>');
    expect(wpautop('<div>Inside</div>')).toBe('<div>Inside</div>');
    expect(wpautop('Before\n<hr />\nAfter')).toBe('<p>Before</p>\n<hr />\n<p>After</p>');
  });

  it('keeps existing paragraphs as they are', () => {
    expect(wpautop('<p>Already</p>')).toBe('<p>Already</p>');
    expect(wpautop('<p>One</p>\n\n<p>Two</p>')).toBe('<p>One</p>\n<p>Two</p>');
  });

  it('wraps inline HTML and keeps newlines inside tags', () => {
    expect(wpautop('A <a\nhref="https://x.example">link</a> here')).toBe(
      '<p>A <a\nhref="https://x.example">link</a> here</p>',
    );
    expect(wpautop('<strong>Bold</strong>\nnext')).toBe('<p><strong>Bold</strong><br />\nnext</p>');
  });

  it('moves a paragraph inside a blockquote', () => {
    expect(wpautop('<blockquote>Quote</blockquote>')).toBe('<blockquote><p>Quote</p></blockquote>');
  });

  it('leaves <pre> content untouched', () => {
    expect(wpautop('Code:\n\n<pre>a\n\nb\n</pre>\n\nAfter')).toBe(
      '<p>Code:</p>\n<pre>a\n\nb\n</pre>\n<p>After</p>',
    );
  });

  it('turns double <br> into a paragraph break', () => {
    expect(wpautop('One<br><br>Two')).toBe('<p>One</p>\n<p>Two</p>');
  });

  it('normalises <br> forms', () => {
    expect(wpautop('a<br>b<br/>c')).toBe('<p>a<br />b<br />c</p>');
  });

  it('keeps a figure with its caption together', () => {
    expect(
      wpautop('<figure><img src="https://x.example/a.png" />\n<figcaption>Cap</figcaption></figure>'),
    ).toBe('<figure><img src="https://x.example/a.png" /><figcaption>Cap</figcaption></figure>');
  });
});

describe('sanitizeHtml', () => {
  it('gives text without <, > or & back as the parser would, without running it', () => {
    // After a tag the parser reads the same text; its answer there is what the short cut must give.
    const text = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !/[<>&]/.test(s));
    fc.assert(
      fc.property(text, (s) => {
        expect(sanitizeHtml(s)).toBe(s);
        expect(sanitizeHtml(`<i></i>${s}`)).toBe(`<i></i>${s}`);
      }),
      { numRuns: 3000 },
    );
    expect(sanitizeHtml('Fish & Chips')).toBe('Fish &amp; Chips');
    expect(sanitizeHtml('a > b')).toBe('a &gt; b');
  });

  it('gives text whose ampersands start no reference back as the parser would, without running it', () => {
    // `&` followed by anything but a letter, digit or `#` (or nothing): the short cut escapes it as the
    // parser's answer after a tag does; text with references (`&amp;`, `&copy`, `&#38;`) is parsed.
    const piece = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.constantFrom(
        '&',
        '& ',
        '&&',
        '&;',
        '&-',
        '&\n',
        '&é',
        '&\u00a0',
        ' &',
        'R&D',
        '&amp;',
        '&copy',
        '&#38;',
        '&x',
      ),
    );
    const text = fc
      .array(piece, { maxLength: 8 })
      .map((parts) => parts.join(''))
      .filter((s) => !/[<>]/.test(s));
    fc.assert(
      fc.property(text, (s) => {
        expect(sanitizeHtml(s)).toBe(sanitizeHtml(`<i></i>${s}`).slice('<i></i>'.length));
      }),
      { numRuns: 5000 },
    );
    expect(sanitizeHtml('Arts & Crafts & more &')).toBe('Arts &amp; Crafts &amp; more &amp;');
    expect(sanitizeHtml('R&D &amp; &copy &#38;')).toBe('R&amp;D &amp; © &amp;');
  });

  it('keeps formatting, links, images, lists, headings and tables', () => {
    const html =
      '<h2>Title</h2><p><strong>b</strong> <em>i</em> <a href="https://x.example/" title="t">l</a></p>' +
      '<ul><li>1</li></ul><ol start="3"><li>2</li></ol><img src="https://x.example/a.png" alt="A" />' +
      '<table><tbody><tr><td colspan="2">c</td></tr></tbody></table><blockquote cite="https://q.example/">q</blockquote>';
    expect(sanitizeHtml(html)).toBe(html);
  });

  it('drops script, style and iframe with their content', () => {
    expect(
      sanitizeHtml('a<script>alert(1)</script>b<style>p{}</style>c<iframe src="https://x">fb</iframe>d'),
    ).toBe('abcd');
  });

  it('drops event handler attributes and javascript: URLs', () => {
    expect(sanitizeHtml('<a href="javascript:alert(1)" onclick="x()">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<a href=" JavaScript:alert(1)">x</a>')).toBe('<a>x</a>');
    expect(sanitizeHtml('<img src="https://x.example/a.png" onerror="x()" />')).toBe(
      '<img src="https://x.example/a.png" />',
    );
    expect(sanitizeHtml('<img src="data:image/png;base64,AAAA" />')).toBe('<img />');
  });

  it('keeps mailto and tel links', () => {
    expect(sanitizeHtml('<a href="mailto:a@b.example">m</a><a href="tel:+15550100">t</a>')).toBe(
      '<a href="mailto:a@b.example">m</a><a href="tel:+15550100">t</a>',
    );
  });

  it('keeps harmless inline styles only', () => {
    expect(sanitizeHtml('<span style="color: red; background-image: url(javascript:x)">r</span>')).toBe(
      '<span style="color:red">r</span>',
    );
  });

  it('unwraps unknown tags but keeps their text', () => {
    expect(sanitizeHtml('<form><input value="x" />Text</form>')).toBe('Text');
  });

  it('escapes stray ampersands and angle brackets like wp_kses', () => {
    expect(sanitizeHtml('Tom & Jerry, 5 < 6')).toBe('Tom &amp; Jerry, 5 &lt; 6');
  });

  it('leaves plain text with newlines for wpautop', () => {
    expect(sanitizeHtml('Line one\nline two\n\nPara two')).toBe('Line one\nline two\n\nPara two');
  });
});

describe('stripTags', () => {
  it('removes tags, keeps text and trims', () => {
    expect(stripTags('  <b>Full</b> <i>Event</i> ')).toBe('Full Event');
  });

  it('drops script and style bodies and comments', () => {
    expect(stripTags('A<script>alert(1)</script><style>b{}</style><!-- c -->B')).toBe('AB');
  });

  it('keeps a lone < as text', () => {
    expect(stripTags('5 < 6 > 4')).toBe('5 < 6 > 4');
  });

  it('decodes entities to plain characters', () => {
    expect(stripTags('Bob&#8217;s &amp; Co &copy; &#x263A;')).toBe('Bob’s & Co © ☺');
    expect(stripTags('&unknown; &#0;')).toBe('&unknown; \ufffd');
  });
});

describe('escapeTitle', () => {
  it('writes & as &#038; and escapes angle brackets', () => {
    expect(escapeTitle('Rock & Roll <live>')).toBe('Rock &#038; Roll &lt;live&gt;');
  });

  it('leaves quotes and other characters alone', () => {
    expect(escapeTitle(`Bob's "Café"`)).toBe(`Bob's "Café"`);
  });

  it('round-trips through stripTags', () => {
    expect(stripTags(escapeTitle('A & B <c>'))).toBe('A & B <c>');
  });
});

describe('htmlToText', () => {
  it('turns the wpautop example back into its text', () => {
    expect(htmlToText('<p>Line one<br />\nline two</p>\n<p>Para two</p>')).toBe(
      'Line one\nline two\n\nPara two',
    );
  });

  it('reads the JSON-LD description of the A.1 example', () => {
    expect(htmlToText('<p>Short</p>')).toBe('Short');
  });

  it('decodes entities after removing tags', () => {
    expect(htmlToText('<p>Tom &amp; Jerry &lt;b&gt; &#8217;</p>')).toBe('Tom & Jerry <b> ’');
  });

  it('decodes named entities of accented letters, as WordPress editors write them', () => {
    expect(htmlToText('<p>Caf&eacute; cr&egrave;me, &Uuml;ber</p>')).toBe('Café crème, Über');
  });

  it('keeps the line structure of wire HTML for an iCalendar DESCRIPTION', () => {
    expect(htmlToText('<p>Line one<br />\nline two</p>\n<p>Para &#8220;two&#8221;</p>')).toBe(
      'Line one\nline two\n\nPara “two”',
    );
    expect(htmlToText('<p>Intro</p>\n<ul><li>a</li><li><a href="x">b</a></li></ul>')).toBe('Intro\n\na\nb');
    expect(htmlToText('Fish &amp; chips')).toBe('Fish & chips');
  });

  it('puts list items and rows on their own lines', () => {
    expect(htmlToText('<h2>Menu</h2>\n<ul>\n<li>One</li>\n<li>Two</li>\n</ul>')).toBe('Menu\n\nOne\nTwo');
    expect(htmlToText('<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>')).toBe('a b\nc');
  });

  it('drops scripts and collapses source whitespace', () => {
    expect(htmlToText('<div>  a\n   b <script>x()</script></div>')).toBe('a b');
  });

  it('returns "" for empty input', () => {
    expect(htmlToText('')).toBe('');
  });
});
