/**
 * Which statuses a caller's list shows (contract B.2, B.5 "Default status", E4), and which
 * password-protected events a request has unlocked (A.10).
 */
import type { FastifyRequest } from 'fastify';
import type { Status } from '../../model/index.ts';
import { type Caller, canEdit, canListUnpublished, isEditor } from '../auth/capabilities.ts';
import { forbidden } from '../errors.ts';
import type { EventRecord, Visibility } from '../store/store.ts';

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

const isProtected = (e: EventRecord) => e.password !== null && e.password !== '';

/**
 * The events of `events` that stay locked: protected, not editable by the caller, and not opened by
 * the request's `password`. A given password is an attempt of the client's address, throttled and
 * counted like a login (security/credential-gate.ts): event passwords cannot be guessed without limit.
 */
export function lockedEvents(
  req: FastifyRequest,
  events: readonly EventRecord[],
  password: string | undefined,
): Set<EventRecord> {
  const candidates = events.filter((e) => isProtected(e) && !canEdit(req.caller, e));
  if (candidates.length === 0) return new Set();
  if (password === undefined) return new Set(candidates);
  const opened = req.server.credentials.unlocks(req, password, new Set(candidates.map((e) => e.password!)));
  return new Set(candidates.filter((e) => !opened.has(e.password!)));
}
