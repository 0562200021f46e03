/**
 * The public pages of venues and organizers, `/venue/<slug>/` and `/organizer/<slug>/`: the `url` the API
 * gives them (render/linked.ts, WordPress's permalinks), which must answer like the event pages do. What a
 * visitor looks for there: the address or the contact, and the upcoming events, linked to their pages.
 * Plain HTML, no script, the pages' CSP.
 *
 * Public: `venuePage`, `organizerPage` (pure).
 */
import { htmlToText } from '../../model/html.ts';
import type { OrganizerRecord, VenueRecord } from '../../store/store.ts';
import { eventList, type ListedEvent } from './event.ts';
import { html, type PageContext, page } from './html.ts';

export function venuePage(ctx: PageContext, v: VenueRecord, events: ListedEvent[]): string {
  const region = v.stateprovince || v.state || v.province;
  const address = [v.address, v.city, region, v.zip, v.country].filter(Boolean).join(', ');
  const body = html`<main class="events">
<p><a href="/events/">← All upcoming events</a></p>
<h1>${htmlToText(v.venue)}</h1>
${address ? html`<p class="where">${address}</p>` : html``}
${v.phone ? html`<p>Phone: ${v.phone}</p>` : html``}
${v.website ? html`<p><a href="${v.website}" rel="noopener">Website</a></p>` : html``}
${description(v.description)}
<h2>Upcoming events here</h2>
${eventList(events)}
</main>`;
  return page(ctx, htmlToText(v.venue), body);
}

export function organizerPage(ctx: PageContext, o: OrganizerRecord, events: ListedEvent[]): string {
  const body = html`<main class="events">
<p><a href="/events/">← All upcoming events</a></p>
<h1>${htmlToText(o.organizer)}</h1>
${o.phone ? html`<p>Phone: ${o.phone}</p>` : html``}
${o.website ? html`<p><a href="${o.website}" rel="noopener">Website</a></p>` : html``}
${description(o.description)}
<h2>Upcoming events</h2>
${eventList(events)}
</main>`;
  return page(ctx, htmlToText(o.organizer), body);
}

function description(text: string) {
  const parts = htmlToText(text)
    .split(/\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
  return html`${parts.map((p) => html`<p>${p}</p>`)}`;
}
