import { describe, expect, it } from 'vitest';
import { toXml } from '../../../src/server/formats/xml.ts';
import { decodeXml, parseXml } from '../../helpers/xml.ts';
import { fullEvent, listPage, minimalEvent } from '../../render/fixtures.ts';

describe('toXml', () => {
  it('renders a single event with the B.12 types (T153)', () => {
    const xml = toXml(fullEvent);
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<response type="object"><id type="integer">8</id>',
      ),
    ).toBe(true);
    expect(xml).toContain('<author>1</author>');
    expect(xml).toContain('<image type="boolean">false</image>');
    expect(xml).toContain(
      '<global_id_lineage type="array"><item>cal.example.org?id=8</item></global_id_lineage>',
    );
    expect(xml).toContain('<description>&lt;p&gt;Full description&lt;/p&gt;</description>');
    expect(xml).toContain(
      '<json_ld type="object"><field name="@context">http://schema.org</field><field name="@type">Event</field>',
    );
    expect(xml).toContain('<term_group type="integer">0</term_group>');
  });

  it('writes empty venue, lists and null as typed empty elements', () => {
    const xml = toXml(minimalEvent);
    expect(xml).toContain('<venue type="array"/>');
    expect(xml).toContain('<organizer type="array"/>');
    expect(xml).toContain('<categories type="array"/>');
    expect(xml).toContain('<values type="array"/>');
    expect(toXml({ a: null, b: {}, c: [], d: '' })).toBe(
      '<?xml version="1.0" encoding="UTF-8"?>\n<response type="object"><a type="null"/><b type="object"/><c type="array"/><d></d></response>\n',
    );
  });

  it('renders a list page as <events type="array"> of <item type="object">', () => {
    const xml = toXml(listPage);
    expect(xml).toContain(
      '<response type="object"><events type="array"><item type="object"><id type="integer">8</id>',
    );
    expect(xml).toContain(
      '<total type="integer">2</total><total_pages type="integer">1</total_pages></response>',
    );
  });

  it('is well-formed and reads back into the same JSON document', () => {
    for (const doc of [fullEvent, minimalEvent, listPage]) {
      expect(decodeXml(parseXml(toXml(doc)))).toEqual(JSON.parse(JSON.stringify(doc)));
    }
  });

  it('checks well-formedness with a checker that rejects broken XML', () => {
    const d = '<?xml version="1.0" encoding="UTF-8"?>\n';
    for (const bad of [
      '<a><b></a></b>',
      '<a>x & y</a>',
      '<a>1 < 2</a>',
      '<a><b></a>',
      '<a/><b/>',
      '<a x=1/>',
      '<a>\u0001</a>',
    ]) {
      expect(() => parseXml(d + bad), bad).toThrow();
    }
    expect(parseXml(`${d}<a x="1"><b/>t&amp;</a>`).text).toBe('t&');
  });

  it('uses <field name="…"> for keys that are not XML names', () => {
    const doc = {
      '@type': 'Place',
      '1st': 1,
      'wp:post_type': 'x',
      'a b': true,
      'q"<&': 'y',
      ünï: 'ok',
      _x: 'z',
    };
    const xml = toXml(doc);
    expect(xml).toContain('<field name="@type">Place</field>');
    expect(xml).toContain('<field name="1st" type="integer">1</field>');
    expect(xml).toContain('<field name="wp:post_type">x</field>');
    expect(xml).toContain('<field name="a b" type="boolean">true</field>');
    expect(xml).toContain('<field name="q&quot;&lt;&amp;">y</field>');
    expect(xml).toContain('<ünï>ok</ünï><_x>z</_x>');
    expect(decodeXml(parseXml(xml))).toEqual(doc);
  });

  it('escapes markup, keeps CR and astral characters, and replaces what XML cannot carry', () => {
    const doc = {
      s: 'a < b && c > "d" \'e\'\r\nf',
      emoji: 'ok 😀',
      bad: 'x\u0001y\u0000z\uD800w\uFFFE',
      tab: '\t',
    };
    const xml = toXml(doc);
    expect(xml).toContain("<s>a &lt; b &amp;&amp; c &gt; &quot;d&quot; 'e'&#13;\nf</s>");
    expect(xml).toContain('<bad>x\uFFFDy\uFFFDz\uFFFDw\uFFFD</bad>');
    expect(decodeXml(parseXml(xml))).toEqual({ ...doc, bad: 'x\uFFFDy\uFFFDz\uFFFDw\uFFFD' });
  });

  it('types numbers as integer or number and follows JSON.stringify for odd values', () => {
    const doc = {
      i: -3,
      n: 1.5,
      big: 10n,
      nan: Number.NaN,
      undef: undefined,
      fn: () => 1,
      date: new Date(0),
      arr: [undefined, 1],
    };
    const xml = toXml(doc);
    expect(xml).toContain(
      '<i type="integer">-3</i><n type="number">1.5</n><big type="integer">10</big><nan type="null"/>',
    );
    expect(xml).not.toContain('undef');
    expect(xml).not.toContain('<fn');
    expect(xml).toContain('<date>1970-01-01T00:00:00.000Z</date>');
    expect(xml).toContain('<arr type="array"><item type="null"/><item type="integer">1</item></arr>');
  });

  it('types the root element by the document', () => {
    expect(toXml([])).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<response type="array"/>\n');
    expect(toXml('x')).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<response>x</response>\n');
    expect(toXml(1)).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<response type="integer">1</response>\n');
  });
});
