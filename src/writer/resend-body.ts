/**
 * `resendBody(kind, doc)`: the complete write body that keeps an item as the API shows it, for the writer's
 * own status-only writes (drafting an item) on targets whose updates replace (TEC 6.2.6, contract C.4):
 * there an update that sends only `status` would reset the time zone, cost, flags, website and image and
 * unlink every organizer, and a venue or organizer update would drop its image and `show_map*` [live].
 *
 * The read shape differs from the write shape (C.5): titles come back HTML-escaped, `website` equal to the
 * permalink means unset, the image is sent as its id string, cost as its values, and links as ids.
 */
import { stripTags } from '../model/html.ts';
import type { Kind } from '../model/kind.ts';

type Doc = Record<string, unknown>;

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const imageId = (v: unknown) => (v && typeof v === 'object' ? String((v as Doc).id ?? '') : '');
const ids = (v: unknown) =>
  Array.isArray(v) ? v.map((t) => (t as Doc)?.id).filter((id) => typeof id === 'number') : [];
/** C.5: a `website` equal to the permalink was never set; sending the permalink back would set it. */
const website = (doc: Doc) => (doc.website === doc.url ? '' : str(doc.website));

export function resendBody(kind: Kind, doc: Doc): Doc {
  switch (kind) {
    case 'event':
      return eventBody(doc);
    case 'venue':
      return {
        ...pick(doc, ['address', 'city', 'country', 'province', 'state', 'zip', 'phone', 'stateprovince']),
        venue: stripTags(str(doc.venue)),
        description: str(doc.description),
        status: doc.status,
        website: str(doc.website),
        image: imageId(doc.image),
        // C.9: TEC 6.2.6 wants these as strings and answers 400 to JSON booleans [live].
        show_map: String(doc.show_map ?? true),
        show_map_link: String(doc.show_map_link ?? true),
      };
    case 'organizer':
      return {
        ...pick(doc, ['phone', 'email']),
        organizer: stripTags(str(doc.organizer)),
        description: str(doc.description),
        status: doc.status,
        website: str(doc.website),
        image: imageId(doc.image),
      };
    default:
      // Terms have no status and their updates are partial everywhere (B.11).
      return { name: stripTags(str(doc.name)), description: str(doc.description) };
  }
}

function eventBody(doc: Doc): Doc {
  const cost = (doc.cost_details as Doc | undefined)?.values;
  const venue = doc.venue && !Array.isArray(doc.venue) ? (doc.venue as Doc).id : undefined;
  return {
    title: stripTags(str(doc.title)),
    description: str(doc.description),
    excerpt: str(doc.excerpt),
    status: doc.status,
    // Without `date` TEC sets the publication date to now (C.4).
    date: doc.date,
    start_date: doc.start_date,
    end_date: doc.end_date,
    timezone: doc.timezone,
    all_day: doc.all_day === true,
    // C.8: the values, not the formatted `cost`; a lone "0" is dropped by TEC, ["0"] is kept.
    cost: Array.isArray(cost) && cost.length > 0 ? cost.map(String) : '',
    website: website(doc),
    image: imageId(doc.image),
    show_map: doc.show_map === true,
    show_map_link: doc.show_map_link === true,
    hide_from_listings: doc.hide_from_listings === true,
    sticky: doc.sticky === true,
    featured: doc.featured === true,
    categories: ids(doc.categories),
    tags: ids(doc.tags),
    ...(typeof venue === 'number' ? { venue } : {}),
    organizer: ids(doc.organizer),
  };
}

function pick(doc: Doc, keys: readonly string[]): Doc {
  const out: Doc = {};
  for (const k of keys) if (typeof doc[k] === 'string') out[k] = doc[k];
  return out;
}
