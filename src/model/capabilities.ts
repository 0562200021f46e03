/**
 * The capability matrix of contract B.2 (WordPress roles, TEC 6.17 mapping), as pure
 * functions of the caller and the item, kept with the model because the server's routes and the renderer
 * (which hides linked items a caller may not read) both ask them; nothing else knows about roles.
 */
import type { Role, Status, TermKind } from './index.ts';

/** The caller: a user with a role (the server's are its stored users), or anonymous (null). */
export type Caller = { readonly id: number; readonly role: Role } | null;

interface Owned {
  author: number;
  status: Status;
}

const EDITORS: ReadonlySet<Role> = new Set(['administrator', 'editor']);
const WRITERS: ReadonlySet<Role> = new Set(['administrator', 'editor', 'author', 'contributor']);
/** WordPress treats these as published for `edit_published_posts` (map_meta_cap). */
const PUBLISHED: ReadonlySet<Status> = new Set(['publish', 'future', 'private']);

export const isEditor = (c: Caller) => c !== null && EDITORS.has(c.role);
const isWriter = (c: Caller) => c !== null && WRITERS.has(c.role);
const owns = (c: Caller, item: Owned) => c !== null && c.id === item.author;

export const canRead = (c: Caller, item: Owned) =>
  item.status === 'publish' || isEditor(c) || (owns(c, item) && isWriter(c));

export const canCreate = (c: Caller) => isWriter(c);

/** May publish, schedule or make private; contributors are downgraded to `pending`. */
export const canPublish = (c: Caller) => c !== null && (isEditor(c) || c.role === 'author');

/** Edit, trash and delete share one rule. */
export const canEdit = (c: Caller, item: Owned) =>
  isEditor(c) ||
  (owns(c, item) && (c!.role === 'author' || (c!.role === 'contributor' && !PUBLISHED.has(item.status))));

export const canSetOtherAuthor = (c: Caller) => isEditor(c);
export const canUploadImage = (c: Caller) => isEditor(c) || c?.role === 'author';
export const canLinkTerms = (c: Caller) => isWriter(c);
export const canManageTerms = (c: Caller, kind: TermKind) =>
  isEditor(c) || (kind === 'categories' && c?.role === 'author');

/** May list statuses other than `publish` at all (anonymous 401, subscriber 403). */
export const canListUnpublished = (c: Caller) => isWriter(c);

/** The status a write ends up with when the caller may not publish (B.1). */
export function effectiveStatus(c: Caller, requested: Status): Status {
  if (canPublish(c)) return requested;
  return requested === 'draft' ? 'draft' : 'pending';
}
