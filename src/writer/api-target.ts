/**
 * `createTarget(transport, options)`: the `Target` (target.ts) of a calendar REST API — ours
 * (`calendar/events/v1`) or a real The Events Calendar site (`tribe/events/v1`) — over any transport.
 *
 * What real sites do and this module answers (contract part C): unknown ids answer 400 `rest_invalid_param`
 * instead of 404 (C.15); lists need an explicit wide window and every status (C.12, C.14), are paged at 50
 * and answer 404 past the end (C.13); a term create of an existing name is 400 `term_exists` with the id
 * (C.11); venues and organizers are create-or-find, so resending them is safe (C.10); DELETE trashes and
 * `force` works only on ours (C.16); updates replace the whole item (C.4, see resend-body.ts).
 */

import type { Kind } from '../model/kind.ts';
import { capabilitiesFor } from './capabilities.ts';
import { withoutEmptyStrings } from './empty-strings.ts';
import { WriteError } from './errors.ts';
import { createRequester, type RequesterOptions } from './requester.ts';
import { resendBody } from './resend-body.ts';
import type { Remote, RemovalMode, Target } from './target.ts';
import type { Transport, TransportRequest } from './transport.ts';

export interface TargetOptions extends RequesterOptions {
  /** `calendar/events/v1` (ours) or `tribe/events/v1` (TEC). */
  namespace: string;
  /** For messages and the report (Target.label). */
  label: string;
  /** Target.instance. */
  instance?: string;
}

type Doc = Record<string, unknown>;

/** Kind → collection name: the path segment and the list document's array key (A.7). */
const PLURAL: Readonly<Record<Kind, string>> = {
  category: 'categories',
  tag: 'tags',
  venue: 'venues',
  organizer: 'organizers',
  event: 'events',
};
const isTerm = (kind: Kind) => kind === 'category' || kind === 'tag';

/** Every status but trash (C.14: `any` is a 400; editors' default would do, but not for other roles). */
const ALL_STATUSES = 'publish,future,draft,pending,private';

export function createTarget(transport: Transport, options: TargetOptions): Target {
  const ns = `/${options.namespace.replace(/^\/+|\/+$/g, '')}`;
  const capabilities = capabilitiesFor(options.namespace);
  const requester = createRequester(transport, options);
  const collection = (kind: Kind) => `${ns}/${PLURAL[kind]}`;
  const item = (kind: Kind, id: number) => `${collection(kind)}/${id}`;
  const call = (req: TransportRequest, recover?: () => Promise<unknown>) => requester.call(req, recover);
  const remote = async (req: TransportRequest, recover?: () => Promise<unknown>) =>
    toRemote(req, await call(req, recover));

  const get = async (kind: Kind, id: number): Promise<Remote | null> => {
    try {
      return await remote({ method: 'GET', path: item(kind, id) });
    } catch (err) {
      if (isGone(err)) return null;
      throw err;
    }
  };

  const findBySlug = async (kind: Kind, slug: string): Promise<Remote | null> => {
    if (isTerm(kind)) {
      const req: TransportRequest = {
        method: 'GET',
        path: collection(kind),
        query: { slug, hide_empty: 'false', per_page: capabilities.maxPerPage },
      };
      const items = listItems(req, await call(req), PLURAL[kind]);
      const hit = items.find((t) => (t as Doc).slug === slug);
      return hit ? toRemote(req, hit) : null;
    }
    try {
      return await remote({ method: 'GET', path: `${collection(kind)}/by-slug/${encodeURIComponent(slug)}` });
    } catch (err) {
      if (isGone(err)) return null;
      throw err;
    }
  };

  /**
   * The body as the API takes it: without the fields it has no parameter for, and (C.21) the empty strings
   * a real TEC site refuses put as it accepts them (empty-strings.ts).
   */
  const wire = (kind: Kind, doc: Doc): Doc => {
    const unwritable = capabilities.unwritableFields?.[kind] ?? [];
    const body = unwritable.some((f) => f in doc)
      ? Object.fromEntries(Object.entries(doc).filter(([f]) => !unwritable.includes(f)))
      : doc;
    return capabilities.refusesEmptyStrings ? withoutEmptyStrings(kind, body) : body;
  };

  const update = (kind: Kind, id: number, body: Doc) =>
    remote({ method: 'POST', path: item(kind, id), body: wire(kind, body) });

  const create = async (kind: Kind, doc: Doc): Promise<Remote> => {
    const body = wire(kind, doc);
    const req: TransportRequest = { method: 'POST', path: collection(kind), body };
    if (kind === 'event')
      return remote(
        req,
        lostEventCreate(req, body, (slug) => findBySlug(kind, slug)),
      );
    try {
      // Terms, venues and organizers are create-or-find on the server: resending them is safe.
      return await remote(req);
    } catch (err) {
      const found = isTerm(kind) ? await existingTerm(err, kind, body) : null;
      if (found) return found;
      throw err;
    }
  };

  /** C.11: `term_exists` names the term; `duplicate_term_slug` (ours, B.11) means our deterministic slug is taken. */
  const existingTerm = async (err: unknown, kind: Kind, body: Doc): Promise<Remote | null> => {
    if (!(err instanceof WriteError) || err.status !== 400) return null;
    const termId = Number(err.data?.term_id);
    if (err.code === 'term_exists' && Number.isInteger(termId)) return get(kind, termId);
    if (err.code === 'duplicate_term_slug' && typeof body.slug === 'string')
      return findBySlug(kind, body.slug);
    return null;
  };

  const remove = async (kind: Kind, id: number, mode: RemovalMode): Promise<void> => {
    try {
      if (mode === 'draft') {
        if (isTerm(kind)) throw unsupported(kind, id);
        let body: Doc = { status: 'draft' };
        if (capabilities.updatesReplace) {
          const current = await get(kind, id);
          if (!current) return;
          body = wire(kind, { ...resendBody(kind, current.body), status: 'draft' });
        }
        await call({ method: 'POST', path: item(kind, id), body });
        return;
      }
      const force = mode === 'delete' && capabilities.permanentDelete;
      await call({ method: 'DELETE', path: item(kind, id), query: force ? { force: 'true' } : undefined });
    } catch (err) {
      if (isGone(err)) return;
      throw err;
    }
  };

  async function* list(kind: Kind): AsyncIterable<Remote> {
    const perPage = capabilities.maxPerPage;
    const filters = isTerm(kind)
      ? { hide_empty: 'false' }
      : kind === 'event'
        ? { start_date: '1900-01-01', end_date: '2100-12-31', status: ALL_STATUSES }
        : { status: ALL_STATUSES };
    for (let page = 1; ; page++) {
      const req: TransportRequest = {
        method: 'GET',
        path: collection(kind),
        query: { ...filters, page, per_page: perPage },
      };
      let doc: unknown;
      try {
        doc = await call(req);
      } catch (err) {
        // C.13: a page past the end is 404 `event-archive-page-not-found` (venues and organizers alike).
        if (err instanceof WriteError && err.status === 404 && err.code.endsWith('-archive-page-not-found'))
          return;
        throw err;
      }
      const items = listItems(req, doc, PLURAL[kind]);
      for (const it of items) yield toRemote(req, it);
      const totalPages = (doc as Doc).total_pages;
      const last = typeof totalPages === 'number' ? page >= totalPages : items.length < perPage;
      if (last || items.length === 0) return;
    }
  }

  let access: Promise<void> | undefined;
  const checkAccess = () => {
    access ??= capabilities.whoAmI ? verifyAccess(capabilities.whoAmI) : Promise.resolve();
    return access;
  };

  const verifyAccess = async (path: string): Promise<void> => {
    const req: TransportRequest = {
      method: 'GET',
      path,
      query: { context: 'edit', _fields: 'id,slug,roles,capabilities' },
    };
    let me: Doc;
    try {
      me = (await call(req)) as Doc;
    } catch (err) {
      if (err instanceof WriteError && err.status === 401)
        throw new WriteError(
          `${options.label}: the site did not accept the credentials (HTTP 401 ${err.code}): a wrong user name or application password`,
          { ...err, code: 'not_authenticated', retryable: false },
        );
      // No such route (not WordPress, or the users endpoint switched off): the writes will tell.
      if (err instanceof WriteError && (err.status === 404 || err.status === 403)) return;
      throw err;
    }
    const caps = (me.capabilities ?? {}) as Record<string, unknown>;
    if (caps.edit_tribe_events !== true) {
      const roles = Array.isArray(me.roles) ? me.roles.join(', ') : 'unknown';
      throw new WriteError(
        `${options.label}: user ${String(me.slug ?? me.id)} (role ${roles}) may not create events on this site`,
        { code: 'insufficient_role', status: 403, method: 'GET', path, retryable: false },
      );
    }
  };

  return {
    label: options.label,
    instance: options.instance,
    capabilities,
    checkAccess,
    create,
    update,
    remove,
    get,
    findBySlug,
    list,
    requests: requester.requests,
    close: () => transport.close(),
  };
}

/**
 * The `recover` of an event create (requester.ts): the event under the slug we sent, if the lost attempt
 * made it. Without a slug nothing can tell whether it did, so the create is not resent.
 */
function lostEventCreate(req: TransportRequest, body: Doc, bySlug: (slug: string) => Promise<Remote | null>) {
  return async (): Promise<unknown> => {
    if (typeof body.slug !== 'string' || body.slug === '') {
      throw new WriteError(
        `${req.method} ${req.path}: the answer to an event create was lost and the body has no slug to look it up by; not resent, so that it cannot be created twice`,
        { code: 'unconfirmed_create', status: 0, method: req.method, path: req.path, retryable: false },
      );
    }
    const found = await bySlug(body.slug);
    return found ? found.body : undefined;
  };
}

/** C.15: gone is 404, 410 (trashed), or TEC 6.2.6's 400 `rest_invalid_param` naming the id or slug. */
function isGone(err: unknown): boolean {
  if (!(err instanceof WriteError)) return false;
  if (err.status === 404 || err.status === 410) return true;
  const params = err.data?.params;
  return (
    err.status === 400 &&
    err.code === 'rest_invalid_param' &&
    typeof params === 'object' &&
    params !== null &&
    ('id' in params || 'slug' in params)
  );
}

function toRemote(req: TransportRequest, doc: unknown): Remote {
  const d = doc as Doc;
  if (!d || typeof d !== 'object' || typeof d.id !== 'number') {
    throw badResponse(req, 'an item with a numeric `id`');
  }
  return {
    id: d.id,
    slug: typeof d.slug === 'string' ? d.slug : '',
    ...(typeof d.status === 'string' ? { status: d.status } : {}),
    ...(typeof d.modified_utc === 'string' ? { modified: d.modified_utc } : {}),
    body: d,
  };
}

function listItems(req: TransportRequest, doc: unknown, key: string): unknown[] {
  // TEC term lists past the end and some empty lists are a bare `[]` (C.13).
  if (Array.isArray(doc)) return doc;
  const items = (doc as Doc | null)?.[key];
  if (!Array.isArray(items)) throw badResponse(req, `a list document with a \`${key}\` array`);
  return items;
}

const badResponse = (req: TransportRequest, expected: string) =>
  new WriteError(`${req.method} ${req.path}: expected ${expected}, got something else`, {
    code: 'bad_response',
    status: 200,
    method: req.method,
    path: req.path,
    retryable: false,
  });

const unsupported = (kind: Kind, id: number) =>
  new WriteError(`${kind} ${id}: terms have no draft status; use the trash or delete removal policy`, {
    code: 'unsupported',
    status: 0,
    method: 'POST',
    path: `${PLURAL[kind]}/${id}`,
    retryable: false,
  });
