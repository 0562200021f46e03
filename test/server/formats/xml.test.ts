import { describe, expect, it } from 'vitest';
import { toXml } from '../../../src/server/formats/xml.ts';
import { fullEvent, listPage, minimalEvent } from './fixtures.ts';

interface Node {
  name: string;
  attrs: Record<string, string>;
  children: Node[];
  text: string;
}

const NAME = '[A-Za-z_\\u00C0-\\uFFFD][-.0-9A-Za-z_\\u00B7\\u00C0-\\uFFFD]*';
const TOKEN = new RegExp(`<(${NAME})((?:\\s+${NAME}="[^"<]*")*)\\s*(/?)>|</(${NAME})>|([^<]+)|(<)`, 'gy');
const ATTR = new RegExp(`(${NAME})="([^"<]*)"`, 'g');
const REF = /&(?:(amp|lt|gt|quot|apos)|#(\d+)|#x([0-9a-fA-F]+));|(&)/g;

function unescapeXml(s: string): string {
  return s.replace(REF, (_m, named: string, dec: string, hex: string, bare: string) => {
    if (bare) throw new Error(`bare & in ${JSON.stringify(s)}`);
    if (named) return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[named]!;
    return String.fromCodePoint(dec ? Number(dec) : Number.parseInt(hex, 16));
  });
}

/** A strict little XML parser for our output: throws on anything not well-formed. */
function parseXml(xml: string): Node {
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (!xml.startsWith(declaration)) throw new Error('missing declaration');
  const body = xml.slice(declaration.length).replace(/\n$/, '');
  const root: Node = { name: '#document', attrs: {}, children: [], text: '' };
  const stack = [root];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < body.length) {
    const m = TOKEN.exec(body);
    if (!m) break;
    const top = stack[stack.length - 1];
    if (m[6]) throw new Error(`stray < at ${m.index}`);
    if (m[1]) {
      const attrs: Record<string, string> = {};
      for (const a of m[2].matchAll(ATTR)) {
        if (a[1] in attrs) throw new Error(`duplicate attribute ${a[1]}`);
        attrs[a[1]] = unescapeXml(a[2]);
      }
      const node: Node = { name: m[1], attrs, children: [], text: '' };
      top.children.push(node);
      if (!m[3]) stack.push(node);
    } else if (m[4]) {
      if (m[4] !== top.name) throw new Error(`</${m[4]}> closes <${top.name}>`);
      stack.pop();
    } else {
      if (top === root) throw new Error('text outside the root element');
      top.text += unescapeXml(m[5]);
    }
  }
  if (TOKEN.lastIndex !== body.length && body.length > 0) throw new Error(`unparsed at ${TOKEN.lastIndex}`);
  if (stack.length !== 1) throw new Error(`unclosed <${stack[stack.length - 1].name}>`);
  if (root.children.length !== 1) throw new Error('not exactly one root element');
  for (const c of body) {
    const cp = c.codePointAt(0)!;
    const allowed =
      cp === 0x9 ||
      cp === 0xa ||
      cp === 0xd ||
      (cp >= 0x20 && cp <= 0xd7ff) ||
      (cp >= 0xe000 && cp <= 0xfffd) ||
      cp > 0xffff;
    if (!allowed) throw new Error(`character U+${cp.toString(16)} is not allowed in XML`);
  }
  return root.children[0];
}

/** Reads our XML back into JSON by the B.12 rules. */
function decode(node: Node): unknown {
  const type = node.attrs.type;
  if (node.children.length > 0 && type !== 'array' && type !== 'object')
    throw new Error('children in a scalar');
  switch (type) {
    case undefined:
      return node.text;
    case 'integer':
    case 'number':
      return Number(node.text);
    case 'boolean':
      return node.text === 'true';
    case 'null':
      return null;
    case 'array':
      return node.children.map((c) => {
        if (c.name !== 'item') throw new Error(`<${c.name}> in an array`);
        return decode(c);
      });
    case 'object':
      return Object.fromEntries(
        node.children.map((c) => [c.name === 'field' ? c.attrs.name : c.name, decode(c)]),
      );
    default:
      throw new Error(`unknown type ${type}`);
  }
}

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
      expect(decode(parseXml(toXml(doc)))).toEqual(JSON.parse(JSON.stringify(doc)));
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
    expect(decode(parseXml(xml))).toEqual(doc);
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
    expect(decode(parseXml(xml))).toEqual({ ...doc, bad: 'x\uFFFDy\uFFFDz\uFFFDw\uFFFD' });
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
