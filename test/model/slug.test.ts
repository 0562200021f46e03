import { describe, expect, it } from 'vitest';
import { slugify, uniqueSlug, untrashedSlug } from '../../src/model/slug.ts';

describe('slugify', () => {
  it('follows the A.0 example', () => {
    expect(slugify("Bob's & Co")).toBe('bobs-co');
  });

  it('lower-cases and joins words with single dashes', () => {
    expect(slugify('Full Event')).toBe('full-event');
    expect(slugify('  Jazz --  Night!!  ')).toBe('jazz-night');
    expect(slugify('10:30 A.M. / Room_4')).toBe('10-30-a-m-room-4');
  });

  it('strips accents', () => {
    expect(slugify('Café Zürich à Noël')).toBe('cafe-zurich-a-noel');
    expect(slugify('Ångström Œuvre')).toBe('angstrom-oeuvre');
  });

  it('spells out letters without a decomposition', () => {
    expect(slugify('Straße STRASSE ẞ')).toBe('strasse-strasse-ss');
    expect(slugify('Æbleskiver på Ø')).toBe('aebleskiver-pa-o');
    expect(slugify('Łódź Þór Đakovo')).toBe('lodz-thor-dakovo');
  });

  it('removes every kind of apostrophe', () => {
    expect(slugify('Rock’n’Roll')).toBe('rocknroll');
    expect(slugify("Children`s O'Brien")).toBe('childrens-obrien');
    expect(slugify('Bob´s Diner')).toBe('bobs-diner');
  });

  it('folds compatibility characters such as ligatures and full-width digits', () => {
    expect(slugify('ﬁnal １２ Ａ Ⅻ')).toBe('final-12-a-xii');
  });

  it('returns "" when nothing is left', () => {
    expect(slugify('')).toBe('');
    expect(slugify(' !!! ')).toBe('');
    expect(slugify('音乐会')).toBe('');
  });

  it('caps the slug at 200 characters without a trailing dash', () => {
    const slug = slugify(`${'a'.repeat(199)} b`);
    expect(slug).toBe('a'.repeat(199));
    expect(slugify('x'.repeat(300))).toHaveLength(200);
  });
});

describe('uniqueSlug', () => {
  it('returns the base when it is free', async () => {
    expect(await uniqueSlug('full-event', () => false)).toBe('full-event');
  });

  it('appends -2, -3… like WordPress', async () => {
    const taken = new Set(['full-event', 'full-event-2']);
    expect(await uniqueSlug('full-event', (s) => taken.has(s))).toBe('full-event-3');
    expect(await uniqueSlug('x', (s) => s === 'x')).toBe('x-2');
  });

  it('suffixes a base that already ends in a number', async () => {
    expect(await uniqueSlug('event-2', (s) => s === 'event-2')).toBe('event-2-2');
  });

  it('refuses an empty base', async () => {
    await expect(uniqueSlug('', () => false)).rejects.toThrow(RangeError);
  });
});

describe('untrashedSlug', () => {
  it('takes off what trashing appended, with the -N a taken trashed slug gets', () => {
    expect(untrashedSlug('jazz-night__trashed')).toBe('jazz-night');
    expect(untrashedSlug('jazz-night__trashed-2')).toBe('jazz-night');
    expect(untrashedSlug('jazz-night-3f9a1c2b7d__trashed')).toBe('jazz-night-3f9a1c2b7d');
  });

  it('leaves a slug that was not trashed as it is', () => {
    expect(untrashedSlug('jazz-night')).toBe('jazz-night');
    expect(untrashedSlug('jazz-night-2')).toBe('jazz-night-2');
    expect(untrashedSlug('__trashed')).toBe('__trashed');
    expect(untrashedSlug('jazz__trashed-night')).toBe('jazz__trashed-night');
  });
});
