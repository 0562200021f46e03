/**
 * Reading the server's XML (contract B.12) back in tests: a strict little parser that throws on
 * anything not well-formed, and the decoder from its elements to the JSON document.
 */

export interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
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
export function parseXml(xml: string): XmlNode {
  const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n';
  if (!xml.startsWith(declaration)) throw new Error('missing declaration');
  const body = xml.slice(declaration.length).replace(/\n$/, '');
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
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
      const node: XmlNode = { name: m[1], attrs, children: [], text: '' };
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

/** Reads our XML back into JSON by the B.12 rules (the `type` attributes). */
export function decodeXml(node: XmlNode): unknown {
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
        return decodeXml(c);
      });
    case 'object':
      return Object.fromEntries(
        node.children.map((c) => [c.name === 'field' ? c.attrs.name : c.name, decodeXml(c)]),
      );
    default:
      throw new Error(`unknown type ${type}`);
  }
}
