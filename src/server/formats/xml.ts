/**
 * XML rendering of any JSON response document (contract B.12, D6).
 *
 * Public: `toXml`.
 *
 * `<response>` holds the document. An object member becomes an element named by its key, or
 * `<field name="…">` when the key is not an XML name (`@type`, `0`, `wp:post_type`); an array becomes one
 * `<item>` per element. Strings are bare text; every other value carries
 * `type="integer|number|boolean|null|array|object"`, and `null`, `[]`, `{}` are empty elements:
 * `<venue type="array"/>`. Values are read the way `JSON.stringify` would (undefined members skipped,
 * `toJSON` honoured, non-finite numbers become `null`), so the XML always mirrors the JSON body.
 */

// XML 1.0 (5th ed.) NameStartChar / NameChar, minus `:` (a colon would make it a namespace prefix).
const NAME =
  /^[A-Z_a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02FF\u0370-\u037D\u037F-\u1FFF\u200C-\u200D\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}][-.0-9A-Z_a-z\u00B7\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u037D\u037F-\u1FFF\u200C-\u200D\u203F-\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD\u{10000}-\u{EFFFF}]*$/u;

// One pass over the text: markup characters, `"` (for attribute values), CR (kept as a reference, or a
// parser would normalise it away), and what XML 1.0 cannot carry at all — C0 controls other than tab/LF/CR,
// U+FFFE/U+FFFF and unpaired surrogates (`u` mode reads a valid pair as one character) — as U+FFFD.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding the characters XML forbids is the point.
const ESCAPE = /[&<>"\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Surrogate}/gu;
const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\r': '&#13;',
};

function escapeXml(s: string): string {
  return s.replace(ESCAPE, (c) => ESCAPES[c] ?? '\uFFFD');
}

// [open tag, close tag] per key, cached: a list page repeats the same few dozen keys.
const tags = new Map<string, readonly [string, string]>();

function tagsOf(key: string): readonly [string, string] {
  let t = tags.get(key);
  if (t === undefined) {
    t = NAME.test(key) ? [key, key] : [`field name="${escapeXml(key)}"`, 'field'];
    if (tags.size < 10_000) tags.set(key, t);
  }
  return t;
}

/**
 * Appends the element for one value to `out`. One template string per push: measured on a 50-event
 * page, pushing many small pieces or iterating with for…in is twice as slow.
 */
function element(out: string[], open: string, close: string, value: unknown): void {
  let v = value;
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    v = (v as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof v) {
    case 'string':
      out.push(`<${open}>${escapeXml(v)}</${close}>`);
      return;
    case 'number':
      out.push(
        Number.isFinite(v)
          ? `<${open} type="${Number.isInteger(v) ? 'integer' : 'number'}">${v}</${close}>`
          : `<${open} type="null"/>`,
      );
      return;
    case 'bigint':
      out.push(`<${open} type="integer">${v}</${close}>`);
      return;
    case 'boolean':
      out.push(`<${open} type="boolean">${v}</${close}>`);
      return;
    case 'object':
      break;
    default:
      // undefined, functions, symbols: JSON.stringify writes `null` for these inside arrays.
      out.push(`<${open} type="null"/>`);
      return;
  }
  if (v === null) {
    out.push(`<${open} type="null"/>`);
    return;
  }
  if (Array.isArray(v)) {
    if (v.length === 0) {
      out.push(`<${open} type="array"/>`);
      return;
    }
    out.push(`<${open} type="array">`);
    for (const item of v) element(out, 'item', 'item', item);
    out.push(`</${close}>`);
    return;
  }
  const start = out.length;
  out.push(`<${open} type="object">`);
  for (const key of Object.keys(v)) {
    const member = (v as Record<string, unknown>)[key];
    // JSON.stringify skips these members entirely.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    const [o, c] = tagsOf(key);
    element(out, o, c, member);
  }
  if (out.length === start + 1) out[start] = `<${open} type="object"/>`;
  else out.push(`</${close}>`);
}

/** Renders a JSON response document as XML: declaration, then `<response>` holding the document. */
export function toXml(doc: unknown): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  element(out, 'response', 'response', doc);
  out.push('\n');
  return out.join('');
}
