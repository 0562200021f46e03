/**
 * WordPress's sanitising of venue and organizer contact fields (issue 15: `"><script>` was kept as
 * given in address, phone, email and website). What TEC runs them through on save:
 *
 * - text (address, city, phone, email …): `sanitize_text_field` — a lone `<` becomes `&lt;`, tags go
 *   (with the content of `<script>` and `<style>`), runs of white space become one space, `%xx` octets
 *   go. Not `sanitize_email` for email: the contract keeps TEC's "any string" there (B.10.1 [live]);
 *   what matters, no markup, holds either way;
 * - URL (website): `esc_url_raw` — an http(s) URL as the URL parser writes it, so `"`, `<`, `>` and
 *   spaces are percent-encoded; anything else is dropped.
 *
 * Public: `sanitizeTextField`, `sanitizeUrl`, `sanitizeContactField(name, value)`.
 */

const LONE_LESS_THAN = /<[^>]*?((?=<)|>|$)/g;
const SCRIPT_OR_STYLE = /<(script|style)[^>]*?>.*?<\/\1>/gis;
const TAG = /<[^>]*>/g;
const OCTET = /%[a-f0-9]{2}/gi;

export function sanitizeTextField(raw: string): string {
  let s = raw;
  if (s.includes('<')) {
    // wp_pre_kses_less_than: a `<` that opens no tag is text.
    s = s.replace(LONE_LESS_THAN, (m) => (m.includes('>') ? m : m.replaceAll('<', '&lt;')));
    s = s.replace(SCRIPT_OR_STYLE, '').replace(TAG, '');
  }
  s = s.replace(/[\r\n\t ]+/g, ' ').trim();
  let before: string;
  do {
    before = s;
    s = s.replace(OCTET, '');
  } while (s !== before);
  return s.trim();
}

export function sanitizeUrl(raw: string): string {
  const s = raw.trim();
  if (s === '') return '';
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : '';
  } catch {
    return '';
  }
}

/** The sanitiser of a venue or organizer field by name. */
export function sanitizeContactField(name: string, value: string): string {
  if (name === 'website') return sanitizeUrl(value);
  return sanitizeTextField(value);
}
