import { describe, expect, it } from 'vitest';
import { decodeEntities, unautop } from '../../src/render/text.ts';

describe('decodeEntities', () => {
  it('decodes the references WordPress writes and leaves unknown ones', () => {
    expect(decodeEntities('Bob&#8217;s &#038; Co &amp; &lt;b&gt; &#x27;x&#X27; &hellip;')).toBe(
      "Bob’s & Co & <b> 'x' …",
    );
    expect(decodeEntities('&bogus; &#xD800; &#9999999; & alone')).toBe('&bogus; &#xD800; &#9999999; & alone');
  });
});

describe('unautop', () => {
  it('gives back the raw text of the A.0 wpautop example', () => {
    expect(unautop('<p>Line one<br />\nline two</p>\n<p>Para two</p>')).toBe(
      'Line one\nline two\n\nPara two',
    );
  });

  it('keeps block HTML wpautop left unwrapped, other markup and entities', () => {
    expect(unautop('<p>text</p>\n<ul><li>a</li></ul>\n<p>more &amp; <b>bold</b></p>')).toBe(
      'text\n\n<ul><li>a</li></ul>\n\nmore &amp; <b>bold</b>',
    );
    expect(unautop('')).toBe('');
    expect(unautop('no markup')).toBe('no markup');
  });
});
