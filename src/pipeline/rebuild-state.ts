/**
 * Rebuilding a pipeline's sync state from the target (a lost or deleted state file, `npm run state --
 * rebuild`, a first run over items an earlier run wrote). Public: rebuildState, slugSuffix.
 *
 * The target cannot be searched by our keys, but every item can be recognised (spec/pipeline.md, Identity):
 * - events by the suffix of the slug we created them with (`<title>-<10 hex>`, map.ts eventSlug, a hash of
 *   pipeline and key): it identifies the event whatever its title has become, and never another
 *   pipeline's event;
 * - venues by name (+ address when the source gives one), organizers by name, categories and tags by name:
 *   the natural keys the mapping uses, which are also what the server's create-or-find matches (C.10); one
 *   renamed on the site since, by the slug the site made from the name it had (`renamed`).
 * Each kind is listed once. An item whose current fields look like what the source wants is recorded as
 * unchanged; any other (or one whose image cannot be compared) as needing one update — never a create, so
 * nothing is doubled.
 */
import { comparableText } from '../model/html.ts';
import type { Kind } from '../model/kind.ts';
import { slugify } from '../model/slug.ts';
import type { StateItem } from '../state/sync-state.ts';
import { resendBody } from '../writer/resend-body.ts';
import type { Remote, Target } from '../writer/target.ts';
import { canonical, type Desired, hashOf } from './desired.ts';
import { fieldHashes } from './local-edits.ts';

/** State hash of a taken-over item that differs from the source (or cannot be compared): updated next. */
export const REBUILT = 'rebuilt';

/**
 * The `hash(pipeline, key)` part of an event slug we created (`jazz-night-3f9a1c2b7d`, or with the `-2` a
 * target adds to a taken slug). A trashed event's slug (`…__trashed`, C.16) has none: it is not taken over.
 */
export function slugSuffix(slug: string): string | undefined {
  return /-([0-9a-f]{10})(?:-\d+)?$/.exec(slug)?.[1];
}

/** State items for the desired entities found on the target, in dependency order. */
export async function rebuildState(target: Target, desired: readonly Desired[]): Promise<StateItem[]> {
  const kinds = new Set(desired.map((d) => d.kind));
  const items: StateItem[] = [];
  const ids = new Map<string, number>(); // `kind\nkey` → remote id, for the references of events
  for (const kind of ['category', 'tag', 'venue', 'organizer', 'event'] as const) {
    if (!kinds.has(kind)) continue;
    const remotes: Remote[] = [];
    for await (const remote of target.list(kind)) remotes.push(remote);
    const claimed = new Set<number>();
    for (const d of desired) {
      if (d.kind !== kind) continue;
      const free = (r: Remote) => !claimed.has(r.id);
      const byName = remotes.find((r) => free(r) && matches(d, r));
      const remote = byName ?? remotes.find((r) => free(r) && renamed(d, r));
      if (!remote) continue;
      claimed.add(remote.id);
      ids.set(`${kind}\n${d.key}`, remote.id);
      // A rename on the site is kept, as it is while the state is there: the rest is compared.
      const compared = byName ? d : { ...d, fields: { ...d.fields, [NAME[kind]]: remote.body[NAME[kind]] } };
      const same = looksSame(compared, remote, (k, key) => ids.get(`${k}\n${key}`));
      const written = canonical(d);
      items.push({
        kind,
        key: d.key,
        remoteId: remote.id,
        slug: remote.slug,
        hash: same ? hashOf(written) : REBUILT,
        written,
        remoteModified: remote.modified ?? null,
        remoteFields: fieldHashes(kind, remote.body),
      });
    }
  }
  return items;
}

/** The field that names an item of each kind. */
const NAME: Record<Kind, string> = {
  category: 'name',
  tag: 'name',
  venue: 'venue',
  organizer: 'organizer',
  event: 'title',
};

/** Text as the site shows it and as the source has it, in one form (C.22). */
const text = (s: unknown) =>
  comparableText(typeof s === 'string' ? s : s === undefined || s === null ? '' : String(s));
/** Names match as TEC's create-or-find matches them: case-insensitively (C.10). */
const normalise = (s: unknown) => text(s).toLowerCase();

/**
 * Is `remote` a venue, organizer or term the site renamed since it was made with `d`'s name? A site keeps
 * the slug it made from the first name (`music` for "Music" renamed "Musik"): without this, a lost state
 * made a second "Music" and moved the events to it.
 */
function renamed(d: Desired, remote: Remote): boolean {
  if (d.kind === 'event') return false;
  const slug = slugify(text(d.fields[NAME[d.kind]]));
  return slug !== '' && remote.slug === slug && (d.kind !== 'venue' || sameAddress(d, remote));
}

/** A venue's address, when the source gives one, as the site has it. */
const sameAddress = (d: Desired, remote: Remote) =>
  d.fields.address === undefined || normalise(remote.body.address) === normalise(d.fields.address);

/** Is `remote` the item `d` stands for? (The natural key, or for events the slug suffix.) */
function matches(d: Desired, remote: Remote): boolean {
  const b = remote.body;
  switch (d.kind) {
    case 'event':
      return d.slug !== undefined && slugSuffix(remote.slug) === slugSuffix(d.slug);
    case 'venue':
      return normalise(b.venue) === normalise(d.fields.venue) && sameAddress(d, remote);
    case 'organizer':
      return normalise(b.organizer) === normalise(d.fields.organizer);
    default:
      return normalise(b.name) === normalise(d.fields.name);
  }
}

type IdOf = (kind: Kind, key: string) => number | undefined;

/**
 * Does the target's item show what `d` would write? Text is compared as text (titles and descriptions
 * come back rendered, C.5), references by id. Doubt means "no": the price of a wrong "no" is one update,
 * of a wrong "yes" a change never written.
 */
function looksSame(d: Desired, remote: Remote, idOf: IdOf): boolean {
  const now = resendBody(d.kind, remote.body);
  const want: Record<string, unknown> = { ...d.fields };
  if (d.kind === 'event') {
    if (want.image) return false; // an image URL vs the attachment it became: cannot be compared
    const refs = (kind: Kind, keys: string[] | undefined) => (keys ?? []).map((k) => idOf(kind, k));
    if (d.refs.venue !== undefined) {
      want.venue = idOf('venue', d.refs.venue);
      // Not on the target (deleted there, and the event unlinked): the run makes it, and links the event.
      if (want.venue === undefined) return false;
    }
    want.organizer = refs('organizer', d.refs.organizers);
    want.categories = refs('category', d.refs.categories);
    want.tags = refs('tag', d.refs.tags);
    const cost = want.cost;
    delete want.cost;
    if (cost === '' || cost === undefined ? now.cost !== '' : !sameCost(cost, now.cost)) return false;
  }
  for (const [field, value] of Object.entries(want)) {
    const got = now[field];
    if (Array.isArray(value)) {
      const sorted = (xs: unknown[]) => JSON.stringify([...xs].map(String).sort());
      if (!Array.isArray(got) || sorted(value) !== sorted(got)) return false;
    } else if (typeof value === 'string' || typeof got === 'string') {
      if (text(value) !== text(got)) return false;
    } else if ((value ?? null) !== (got ?? null)) return false;
  }
  return true;
}

/** `"$25"`, `"10-25"` as written vs the target's cost values `["25"]`, `["10","25"]` (A.6). */
function sameCost(want: unknown, got: unknown): boolean {
  const numbers = (s: string) => s.match(/\d+(?:[.,]\d+)?/g)?.map((n) => Number(n.replace(',', '.'))) ?? [];
  const a = typeof want === 'string' ? numbers(want) : [];
  const b = Array.isArray(got) ? got.flatMap((g) => numbers(String(g))) : [];
  return a.length > 0 ? JSON.stringify(a) === JSON.stringify(b) : text(want) === text(got);
}
