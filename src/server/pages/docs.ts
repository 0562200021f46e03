/**
 * The documentation page, `GET /docs/`: Swagger UI (swagger-ui-dist, served from node_modules under
 * /docs/vendor/, no CDN) rendering this server's OpenAPI document, with "Try it out" against this
 * server. The initializer is a file of its own (static/docs.js), because the Content-Security-Policy
 * allows no inline script; it reads its settings from the `data-` attributes written here.
 *
 * Public: `docsPage(ctx, version)`, pure.
 */
import { html, type PageContext, page } from './html.ts';

/** `version` busts browser caches of the vendor files when swagger-ui-dist is upgraded. */
export function docsPage(ctx: PageContext, version: string): string {
  const head = html`<link rel="stylesheet" href="/docs/vendor/swagger-ui.css?v=${version}">
<script src="/docs/vendor/swagger-ui-bundle.js?v=${version}" defer></script>
<script src="/docs/assets/docs.js?v=${version}" defer></script>`;
  const body = html`<header class="docs-bar">
<a href="/" class="home">calsync</a>
<span>API reference</span>
<a href="${ctx.openApiPath}">OpenAPI document</a>
<a href="/docs/postman.json">Postman collection</a>
</header>
<noscript><p class="noscript">This page needs JavaScript to render the API reference. The
<a href="${ctx.openApiPath}">OpenAPI document</a> has the same content as JSON.</p></noscript>
<div id="swagger-ui" data-openapi="${ctx.openApiPath}" data-api="${ctx.apiPath}"
 data-token="${ctx.tokenPath}"></div>`;
  return page(ctx, 'calsync — API documentation', body, head, 'docs');
}
