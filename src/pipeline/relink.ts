/**
 * Venues, organizers and terms deleted or trashed on the target after we wrote them: the sync state's ids
 * of them then point at nothing, or at an item in the trash, and every event written with them goes wrong.
 * Targets say so in different ways (contract B.6.2):
 * - a deleted venue or organizer: 400 `rest_invalid_param` naming `venue` / `organizer` (both);
 * - a trashed one: 400 on our server; TEC 6.2.6 links it all the same, and its answer shows it `trash`;
 * - a deleted category or tag: 400 on our server; TEC drops it in silence, and its answer lacks it.
 * `lostLinks` reads from an event's write which of its links look lost; apply.ts looks each up, makes it
 * again once per run (a trashed one restored, a deleted one created) and writes the event again.
 */
import type { Kind } from '../model/kind.ts';

export type LinkKind = Exclude<Kind, 'event'>;

/** An event body's link fields (contract B.6.2), and the kind each links to. */
export const LINK_FIELDS = {
  venue: 'venue',
  organizer: 'organizer',
  categories: 'category',
  tags: 'tag',
} as const;
type LinkField = keyof typeof LINK_FIELDS;

export interface Link {
  kind: LinkKind;
  id: number;
}

type Doc = Record<string, unknown>;

/** The ids an event body links in `field`: a venue is one id (or none), the others lists of ids. */
function sentIds(body: Doc, field: LinkField): number[] {
  const value = body[field];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((id): id is number => typeof id === 'number');
}

/** The linked items of an answer's `field`, as the API shows them (a venue object, lists of objects). */
function answered(answer: Doc, field: LinkField): Doc[] {
  const value = answer[field];
  const list = Array.isArray(value) ? value : [value];
  return list.filter((item): item is Doc => typeof item === 'object' && item !== null);
}

/**
 * The links of `sent` (an event's write body) that the target's `error` names, or that its `answer` lacks
 * or shows in the trash. Fields in `skip` (kept as the target has them: preserve-local-edits) are not ours
 * to check.
 */
export function lostLinks(
  sent: Doc,
  result: { error: unknown } | { answer: Doc },
  skip: ReadonlySet<string> = new Set(),
): Link[] {
  const lost: Link[] = [];
  for (const field of Object.keys(LINK_FIELDS) as LinkField[]) {
    if (skip.has(field)) continue;
    const ids = sentIds(sent, field);
    if (ids.length === 0) continue;
    const kind = LINK_FIELDS[field];
    if ('error' in result) {
      if (rejectsParam(result.error, field)) for (const id of ids) lost.push({ kind, id });
      continue;
    }
    const shown = new Map(answered(result.answer, field).map((item) => [item.id, item.status]));
    for (const id of ids) if (!shown.has(id) || shown.get(id) === 'trash') lost.push({ kind, id });
  }
  return lost;
}

/** A 400 naming `param` among its invalid parameters (contract A.8: `data.params`). */
export function rejectsParam(err: unknown, param: string): boolean {
  const e = err as { status?: number; data?: { params?: Record<string, unknown> } };
  return e.status === 400 && e.data?.params !== undefined && param in e.data.params;
}
