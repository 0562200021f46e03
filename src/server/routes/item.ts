/** The checks every write to one event, venue or organizer starts with (contract B.0 steps 3–5). */

import { type Caller, canCreate, canEdit } from '../../model/capabilities.ts';
import type { Status } from '../../model/index.ts';
import { forbidden, inTrash } from '../errors.ts';

/** May write at all (anonymous 401, subscriber 403), then the item (its 404), then may edit it (403). */
export async function editableItem<R extends { author: number; status: Status }>(
  caller: Caller,
  resolve: () => Promise<R>,
): Promise<R> {
  if (!canCreate(caller)) throw forbidden(caller === null);
  const item = await resolve();
  if (!canEdit(caller, item)) throw forbidden(false);
  return item;
}

/** Updating a trashed item is a 410 unless the update sets a non-trash status, which restores it (E6). */
export function refuseTrashed(
  item: { status: Status },
  params: Record<string, unknown>,
  kind: 'event' | 'venue' | 'organizer',
): void {
  if (item.status === 'trash' && (params.status === undefined || params.status === 'trash'))
    throw inTrash(kind);
}
