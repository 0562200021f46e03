/** Which statuses a caller's list shows (contract B.2, B.5 "Default status", E4). */
import type { Status } from '../../model/index.ts';
import { type Caller, canListUnpublished, isEditor } from '../auth/capabilities.ts';
import { forbidden } from '../errors.ts';
import type { Visibility } from '../store/store.ts';

const READABLE: Status[] = ['publish', 'future', 'draft', 'pending', 'private'];

/** `requested` is the list's `status` parameter; absent means the caller's default view. */
export function listVisibility(caller: Caller, requested?: Status[]): Visibility {
  const wanted = requested ?? (canListUnpublished(caller) ? READABLE : ['publish']);
  const unpublished = wanted.filter((s) => s !== 'publish');
  if (unpublished.length && !canListUnpublished(caller)) throw forbidden(caller === null, ['status']);
  if (isEditor(caller)) return { statuses: wanted, ownStatuses: [], ownerId: null };
  return {
    statuses: wanted.includes('publish') ? ['publish'] : [],
    ownStatuses: unpublished,
    ownerId: caller?.id ?? null,
  };
}
