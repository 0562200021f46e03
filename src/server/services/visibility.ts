/**
 * Which statuses a caller's list shows (contract B.2, B.5 "Default status", E4), and which
 * password-protected events a request has unlocked (A.10).
 */

import { type Caller, canEdit, canListUnpublished, isEditor } from '../../model/capabilities.ts';
import type { Status } from '../../model/index.ts';
import type { EventRecord, ProtectedTextAccess, Visibility } from '../../store/store.ts';
import { ApiError, forbidden } from '../errors.ts';
import type { ApiRequest } from '../request.ts';

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

/** Whose protected event text a caller's search may match: those it may edit (capabilities.ts). */
export function protectedTextAccess(caller: Caller): ProtectedTextAccess | undefined {
  if (isEditor(caller)) return 'all';
  if (caller?.role === 'author') return { ownerId: caller.id, unpublishedOnly: false };
  if (caller?.role === 'contributor') return { ownerId: caller.id, unpublishedOnly: true };
  return undefined;
}

const isProtected = (e: EventRecord) => e.password !== null && e.password !== '';

/**
 * The events of `events` that stay locked: protected, not editable by the caller, and not opened by
 * the request's `password`. A given password is an attempt of the client's address, throttled and
 * counted like a login (security/credential-gate.ts): event passwords cannot be guessed without limit.
 */
export function lockedEvents(
  req: ApiRequest,
  events: readonly EventRecord[],
  password: string | undefined,
): Set<EventRecord> {
  const candidates = events.filter((e) => isProtected(e) && !canEdit(req.caller, e));
  if (candidates.length === 0) return new Set();
  if (password === undefined) return new Set(candidates);
  const opened = req.server.credentials.unlocks(req, password, new Set(candidates.map((e) => e.password!)));
  return new Set(candidates.filter((e) => !opened.has(e.password!)));
}

/** A.10: a list filtered by a protected event the caller has not opened would show what its item hides. */
export function refuseLockedFilter(req: ApiRequest, event: EventRecord): void {
  if (isProtected(event) && !canEdit(req.caller, event)) {
    throw new ApiError(
      403,
      'event-password-protected',
      'The requested event is not accessible without a password',
    );
  }
}
