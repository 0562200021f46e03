/**
 * The public event pages: `/event/<slug>/`, the `url` every event has in the API and the feeds (the
 * permalink of a WordPress site), and `/events/`, the upcoming events. Plain server-rendered HTML under the
 * same Content-Security-Policy as the other pages, no script: when, where, who, the description, an "Add
 * to calendar" link (the event as .ics, from the API) and a link to subscribe to the feed. Each event page
 * carries schema.org `Event` data as JSON-LD, the API's own `json_ld` without its empty values, which is
 * what search engines read (a data block, not a script: the CSP does not apply to it).
 *
 * Public: `eventPage`, `eventsPage` (pure: HTML from the rendered event and the context).
 */
import { htmlToText } from '../../model/html.ts';
import { html, type PageContext, page, SafeHtml } from './html.ts';

/** What an event page shows: the API's rendering of a single event (src/render/event.ts, `single`). */
export interface EventWire {
  id: number;
  url: string;
  title: string;
  description: string;
  slug: string;
  all_day: boolean;
  utc_start_date: string;
  utc_end_date: string;
  timezone: string;
  cost: string;
  website: string;
  venue: { venue?: string; address?: string; city?: string; zip?: string; country?: string } | unknown[];
  organizer: { organizer?: string; email?: string; website?: string }[];
  categories: { name: string }[];
  json_ld: Record<string, unknown>;
}

export interface EventLinks {
  /** The event as iCalendar, from the API (`…/events/<id>?ical=1`). */
  ics: string;
  /** The subscription feed, http(s) and webcal. */
  feed: string;
  webcal: string;
}

export function eventPage(ctx: PageContext, e: EventWire, links: EventLinks): string {
  const venue = Array.isArray(e.venue) ? undefined : e.venue;
  const place = venue?.venue
    ? html`<p class="where"><strong>${venue.venue}</strong>${[
        venue.address,
        venue.city,
        venue.zip,
        venue.country,
      ]
        .filter(Boolean)
        .join(', ')
        .replace(/^(.)/, ', $1')}</p>`
    : html``;
  const organizers = e.organizer.filter((o) => o.organizer);
  const body = html`<main class="event">
<p><a href="/events/">← All upcoming events</a></p>
<article>
<h1>${textOf(e.title)}</h1>
<p class="when"><time datetime="${isoOf(e.utc_start_date)}">${when(e)}</time></p>
${place}
${organizers.length ? html`<p class="who">Organised by ${organizers.map((o) => o.organizer).join(', ')}</p>` : html``}
${e.categories.length ? html`<p class="categories">${e.categories.map((c) => textOf(c.name)).join(' · ')}</p>` : html``}
${e.cost ? html`<p class="cost">Cost: ${e.cost}</p>` : html``}
${paragraphs(e.description)}
${e.website && e.website !== e.url ? html`<p><a href="${e.website}" rel="noopener">Website</a></p>` : html``}
<p class="actions"><a href="${links.ics}" download="${`${e.slug || e.id}.ics`}">Add to calendar (.ics)</a>
· <a href="${links.webcal}">Subscribe to the calendar</a> (<a href="${links.feed}">feed</a>)</p>
</article>
</main>`;
  return page(ctx, textOf(e.title), body, jsonLd(e.json_ld));
}

export interface ListedEvent {
  url: string;
  title: string;
  utc_start_date: string;
  utc_end_date: string;
  all_day: boolean;
  timezone: string;
  venue?: string;
}

export function eventsPage(ctx: PageContext, events: ListedEvent[], links: Omit<EventLinks, 'ics'>): string {
  const body = html`<main class="events">
<h1>Upcoming events</h1>
<p><a href="${links.webcal}">Subscribe to the calendar</a> (<a href="${links.feed}">feed</a>) ·
<a href="/">About this service</a></p>
${eventList(events)}
</main>`;
  return page(ctx, 'Upcoming events', body);
}

/** Events as a list of links to their pages, with when and where. */
export function eventList(events: ListedEvent[]): SafeHtml {
  const items = events.map(
    (e) =>
      html`<li><a href="${e.url}">${textOf(e.title)}</a> — <time datetime="${isoOf(e.utc_start_date)}">${when(e)}</time>${e.venue ? html`, ${e.venue}` : html``}</li>`,
  );
  return items.length ? html`<ul>${items}</ul>` : html`<p>No upcoming events.</p>`;
}

/**
 * The API's `json_ld` as schema.org wants it: The Events Calendar's quirks the API keeps for its clients
 * (`performer: "Organization"`, a type name where a performer belongs; `availability: "inStock"`, not the
 * ItemAvailability IRI) are put right, and empty values left out.
 */
export function pageJsonLd(api: Record<string, unknown>): Record<string, unknown> {
  const { performer, offers, ...rest } = api;
  const ld: Record<string, unknown> = { ...rest, '@context': 'https://schema.org' };
  if (performer && typeof performer === 'object') ld.performer = performer;
  if (offers && typeof offers === 'object') {
    const o = offers as Record<string, unknown>;
    ld.offers = {
      ...o,
      availability: o.availability === 'inStock' ? 'https://schema.org/InStock' : o.availability,
    };
  }
  return pruned(ld) as Record<string, unknown>;
}

/** `<script type="application/ld+json">`: `<` escaped so that no value can end the element. */
function jsonLd(data: Record<string, unknown>): SafeHtml {
  const json = JSON.stringify(pageJsonLd(data)).replace(/</g, '\\u003c');
  return html`<script type="application/ld+json">${rawJson(json)}</script>`;
}

/** JSON that is already escaped for the element (no `<`): inserted as it is. */
const rawJson = (json: string) => new SafeHtml(json);

/** Without empty strings, nulls and empty objects or lists: what a crawler would flag as invalid values. */
function pruned(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(pruned).filter((v) => v !== undefined);
    return items.length ? items : undefined;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, pruned(v)] as const)
      .filter(([, v]) => v !== undefined);
    const meaningful = entries.filter(([k]) => k !== '@type');
    return meaningful.length ? Object.fromEntries(entries) : undefined;
  }
  return value === '' || value === null || value === undefined ? undefined : value;
}

const isoOf = (utc: string) => `${utc.replace(' ', 'T')}Z`;

/** "Saturday 5 December 2026, 10:00–16:00 (Europe/London)"; all-day events without times. */
function when(e: Pick<EventWire, 'utc_start_date' | 'utc_end_date' | 'all_day' | 'timezone'>): string {
  const zone = e.timezone || 'UTC';
  const day = new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: zone,
  });
  const time = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: zone });
  const start = new Date(isoOf(e.utc_start_date));
  const end = new Date(isoOf(e.utc_end_date));
  if (e.all_day) {
    const last = day.format(new Date(end.getTime() - 1));
    return day.format(start) === last ? `${last} (all day)` : `${day.format(start)} – ${last}`;
  }
  const sameDay = day.format(start) === day.format(end);
  return sameDay
    ? `${day.format(start)}, ${time.format(start)}–${time.format(end)} (${zone})`
    : `${day.format(start)}, ${time.format(start)} – ${day.format(end)}, ${time.format(end)} (${zone})`;
}

/** The API's titles and names are HTML as WordPress renders them (`&#038;`): back to text. */
const textOf = (rendered: string) => htmlToText(rendered);

/** The description as paragraphs of text (no markup from the data reaches the page). */
function paragraphs(description: string): SafeHtml {
  const parts = htmlToText(description)
    .split(/\n+/)
    .map((p) => p.trim())
    .filter(Boolean);
  return html`${parts.map((p) => html`<p>${p}</p>`)}`;
}
