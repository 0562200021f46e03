/**
 * The landing page, `GET /`: what this service is, where the API and its documentation are, the data
 * formats and the two ways to authenticate, with examples to copy. Plain HTML and one stylesheet: it
 * needs no JavaScript (issue 7, item 1).
 *
 * Public: `landingPage(ctx)`, pure (a string from the context).
 */
import { html, type PageContext, page, type SafeHtml } from './html.ts';

interface Format {
  name: string;
  media: string;
  how: string;
  example: string;
  /** A link that shows it in a browser, if a plain GET can. */
  href?: string;
}

export function landingPage(ctx: PageContext): string {
  const events = `${ctx.apiPath}events`;
  const formats: Format[] = [
    {
      name: 'JSON',
      media: 'application/json',
      how: 'the default',
      example: `curl '${ctx.apiUrl}events?per_page=5'`,
      href: `${events}?per_page=5`,
    },
    {
      name: 'XML',
      media: 'application/xml',
      how: 'Accept: application/xml (or text/xml)',
      example: `curl -H 'accept: application/xml' '${ctx.apiUrl}events'`,
    },
    {
      name: 'iCalendar',
      media: 'text/calendar',
      how: 'Accept: text/calendar, or ?ical=1 on event routes',
      example: `curl -H 'accept: text/calendar' '${ctx.apiUrl}events'`,
      href: `${events}?ical=1`,
    },
    {
      name: 'CSV',
      media: 'text/csv',
      how: 'Accept: text/csv',
      example: `curl -H 'accept: text/csv' '${ctx.apiUrl}events'`,
    },
  ];
  const formatRows: SafeHtml[] = formats.map(
    (f) => html`<tr>
<th scope="row">${f.name}</th>
<td><code>${f.media}</code></td>
<td>${f.how}</td>
<td><pre><code>${f.example}</code></pre>${f.href ? html`<a href="${f.href}">try it</a>` : ''}</td>
</tr>`,
  );

  const body = html`<header class="masthead">
<h1>calsync <span>calendar events API</span></h1>
<p>A REST API for calendar events — events, venues, organizers, categories and tags — with the wire format
of The Events Calendar for WordPress (<code>tribe/events/v1</code>), served from an embedded SQLite store.
Calendars come in with <code>npm run import -- file.ics</code> (iCalendar or CSV) and go out as JSON, XML,
iCalendar and CSV.</p>
<nav aria-label="Main">
<ul class="links">
<li><a href="${ctx.apiPath}" id="api-root">API root <code>${ctx.apiPath}</code></a></li>
<li><a href="/docs/" id="docs">API documentation</a> (try every route in the browser)</li>
<li><a href="${ctx.openApiPath}" id="openapi">OpenAPI 3.1 document</a>
 and a <a href="/docs/postman.json" id="postman">Postman collection</a> to import</li>
<li><a href="/feeds/all.ics" id="feed">Calendar feed <code>/feeds/all.ics</code></a>: every published event,
to subscribe to in a calendar app</li>
</ul>
</nav>
</header>

<main class="content">
<section id="formats">
<h2>Data formats</h2>
<p>Every read route answers in the format the <code>Accept</code> header asks for (RFC 9110 content
negotiation); writes take JSON, form-urlencoded or multipart bodies and answer JSON.</p>
<table>
<thead><tr><th scope="col">Format</th><th scope="col">Media type</th><th scope="col">Ask with</th>
<th scope="col">Example</th></tr></thead>
<tbody>
${formatRows}
</tbody>
</table>
</section>

<section id="auth">
<h2>Authentication</h2>
<p>Reading published events needs no credentials. Writing, and reading drafts and private items, needs a
user; roles and permissions are WordPress's (administrator, editor, author, contributor, subscriber).</p>
<h3>Basic authentication with application passwords</h3>
<p>A user's application password (never the login password) in an HTTP Basic header. The server's
operator creates both:</p>
<pre><code>npm run users -- add alice --role editor     # prints the application password once
curl -u 'alice:abcd efgh ijkl mnop qrst uvwx' -H 'content-type: application/json' \\
  -d '{"title":"Jazz night","start_date":"2027-03-01 19:00","end_date":"2027-03-01 22:00"}' \\
  '${ctx.apiUrl}events'</code></pre>
<h3>OAuth 2.0 client credentials, JWT bearer tokens</h3>
<p>A client acts as one user. It trades its id and secret at <code>${ctx.tokenPath}</code> (RFC 6749
§4.4) for a signed JWT valid for an hour, with the scopes <code>read</code>, <code>write</code> or both,
and sends it as <code>Authorization: Bearer</code>:</p>
<pre><code>npm run users -- client add alice --name importer   # prints a client id and secret once
curl -u "$CLIENT_ID:$CLIENT_SECRET" -d grant_type=client_credentials -d scope=read \\
  '${ctx.tokenUrl}'
# → {"access_token":"eyJ…","token_type":"Bearer","expires_in":3600,"scope":"read"}
curl -H "authorization: Bearer $ACCESS_TOKEN" '${ctx.apiUrl}events?status=draft'</code></pre>
<p>The <a href="/docs/">documentation page</a>'s <em>Authorize</em> button takes either: a user name and
application password, a client id and secret (it fetches the token), or a token you already have.</p>
</section>
</main>

<footer><p>calsync · <a href="${ctx.apiPath}">API root</a> · <a href="/docs/">Docs</a> ·
<a href="${ctx.openApiPath}">OpenAPI</a></p></footer>`;
  return page(ctx, 'calsync — calendar events API', body);
}
