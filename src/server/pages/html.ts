/**
 * The pieces the landing and docs pages share: `html` (a tagged template that escapes every
 * interpolated value unless it is already `SafeHtml`), `page` (the document around a body, no inline
 * script or style so the Content-Security-Policy can forbid both) and `demoBanner`.
 *
 * Public: `html`, `SafeHtml`, `page`, `demoBanner`, `PageContext`.
 */

/** Markup that `html` inserts as is: only what `html` itself produced. */
export class SafeHtml {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
  toString(): string {
    return this.text;
  }
}

/** What the pages are rendered from, per request. */
export interface PageContext {
  /** Path of the API namespace on this origin, with trailing slash (`/calendar/events/v1/`). */
  apiPath: string;
  /** The public API root, absolute (`http://127.0.0.1:8080/calendar/events/v1/`), for curl examples. */
  apiUrl: string;
  /** Path and absolute URL of the token endpoint. */
  tokenPath: string;
  tokenUrl: string;
  /** Path of the OpenAPI document. */
  openApiPath: string;
  /** The next demo reset, when in demo mode. */
  demoNextReset?: Date;
  now: Date;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

type Value = string | number | SafeHtml | readonly SafeHtml[] | null | undefined | false;

/** `html\`<a href="${url}">${name}</a>\``: strings and numbers escaped, SafeHtml (and arrays of it) kept. */
export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new SafeHtml(out);
}

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof SafeHtml) return v.text;
  if (Array.isArray(v)) return v.map((x) => x.text).join('');
  return escapeHtml(String(v));
}

/** The whole document: `<head>` with the site stylesheet and `extraHead`, the banner, then `body`. */
export function page(
  ctx: PageContext,
  title: string,
  body: SafeHtml,
  extraHead: SafeHtml = html``,
  bodyClass = '',
): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/docs/assets/site.css">
<link rel="icon" type="image/png" href="/docs/vendor/favicon-32x32.png" sizes="32x32">
${extraHead}
</head>
<body class="${bodyClass}">
${demoBanner(ctx)}
${body}
</body>
</html>
`.text;
}

/** "Demo: reset every day at 00:00 UTC, next in 5 h 12 min (2026-11-23 00:00 UTC)", or nothing. */
export function demoBanner(ctx: PageContext): SafeHtml {
  const next = ctx.demoNextReset;
  if (!next) return html``;
  const minutes = Math.max(0, Math.ceil((next.getTime() - ctx.now.getTime()) / 60_000));
  const left = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  const at = `${next.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<div class="demo-banner" role="status" data-next-reset="${next.toISOString()}">
<strong>Demo mode.</strong> Anything you write here is public and temporary: the data is reset to the
sample calendar every day at 00:00 UTC. Next reset in ${left}
(<time datetime="${next.toISOString()}">${at}</time>).
</div>`;
}
