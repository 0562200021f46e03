/**
 * The list queries (B.5 events, B.10.3 venues and organizers, B.11 terms) as data: each builder turns a
 * normalised query into SQL texts and their parameters; the store only runs them. `null` means the
 * query matches nothing (`matchNothing`, or an empty id list: an OR over no ids is false), so no SQL
 * runs at all.
 */
import { type Param, placeholders } from './connection.ts';
import { likeAll, likePattern, searchable, splitWords } from './search.ts';
import type {
  EventQuery,
  LinkedKind,
  LinkedQuery,
  ProtectedTextAccess,
  TermQuery,
  Visibility,
} from './store.ts';

/** A venue, organizer or term list: its page and its COUNT. */
export interface ListSql {
  /** Ends with `LIMIT ? OFFSET ?`: run with `[...params, limit, offset]`. */
  page: string;
  count: string;
  params: Param[];
}

/** An events list: the ids of every match in list order, as one JSON array. */
export interface EventListSql {
  /** `SELECT … AS ids`: a JSON array of the ids (sqlite-events.ts pages through it). */
  ids: string;
  params: Param[];
  /**
   * `SELECT id, start_utc, date_utc` of the matches among the ids of a JSON array (parameter ?1, then
   * `params` of its own), to add new events to a list read before (sqlite-events.ts). Built when a kept
   * list is patched, not with every list.
   */
  members: () => { sql: string; params: Param[] };
  /** `SELECT e.id` of the matches in list order, unaggregated (the PostgreSQL store reads the rows). */
  ordered: string;
  /** The list's order: by `start_utc, date_utc, id`, or by `date_utc, id` (an include list). */
  order: 'start' | 'date';
  /** The query reads `events_fts`: the store then makes sure the queued events get indexed. */
  usesSearchIndex: boolean;
}

/**
 * What the builders write differently for each database: the SQLite store's SQL by default, the
 * PostgreSQL store's (postgres.ts) with `POSTGRES`. Placeholders are `?` in both (postgres-connection.ts
 * numbers them).
 */
export interface Dialect {
  /** An ASCII-case-insensitive LIKE: SQLite's LIKE is one; PostgreSQL's LIKE is case-sensitive, ILIKE is not. */
  like: 'LIKE' | 'ILIKE';
  /** Boolean constants: PostgreSQL takes no integer as a condition. */
  false: string;
  true: string;
  /**
   * How search words are matched when a whole list is read: through SQLite's FTS5 trigram index, or
   * with (I)LIKE on every row — which PostgreSQL's pg_trgm GIN index serves (postgres-schema.ts).
   */
  search: SearchMode;
  /** Spelled-out NULL order of `date_utc` (drafts): SQLite sorts NULL first ascending, PostgreSQL last. */
  nullsFirst: string;
  nullsLast: string;
  /** SQLite's unary `+`, which keeps a column from being an index's lookup key; PostgreSQL has none for text. */
  noIndex: '+' | '';
}

export const SQLITE: Dialect = {
  like: 'LIKE',
  false: '0',
  true: '1',
  search: 'index',
  nullsFirst: '',
  nullsLast: '',
  noIndex: '+',
};
export const POSTGRES: Dialect = {
  like: 'ILIKE',
  false: 'false',
  true: 'true',
  search: 'row',
  nullsFirst: ' NULLS FIRST',
  nullsLast: ' NULLS LAST',
  noIndex: '',
};

/** `status IN statuses OR (author = ownerId AND status IN ownStatuses)` on table alias `t`. */
export function visibilitySql(t: string, v: Visibility, params: Param[], d: Dialect = SQLITE): string {
  const parts: string[] = [];
  if (v.statuses.length > 0) {
    parts.push(`${t}.status IN (${placeholders(v.statuses.length)})`);
    params.push(...v.statuses);
  }
  if (v.ownerId !== null && v.ownStatuses.length > 0) {
    parts.push(`(${t}.author = ? AND ${t}.status IN (${placeholders(v.ownStatuses.length)}))`);
    params.push(v.ownerId, ...v.ownStatuses);
  }
  if (parts.length === 0) return d.false;
  return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
}

function inList(column: string, ids: readonly number[], params: Param[]): string {
  params.push(...ids);
  return `${column} IN (${placeholders(ids.length)})`;
}

const START_BOUNDS = [
  ['startFrom', 'e.start_utc >= ?'],
  ['startsBefore', 'e.start_utc < ?'],
  ['startsAfter', 'e.start_utc > ?'],
] as const;
const END_BOUNDS = [
  ['endTo', 'end_utc <= ?'],
  ['endsBefore', 'end_utc < ?'],
  ['endsAfter', 'end_utc > ?'],
] as const;

const TEXT_COLUMNS = ['title', 'description', 'excerpt'] as const;

/**
 * Every search word in one of `columns` of event `e`. Words of ≥ 3 characters through the FTS index
 * (each a quoted string, so no input is FTS syntax); events queued for the index (search-index.ts) are
 * not in it yet, or are there with their old text: they are matched with LIKE, as short words are,
 * so a search never waits for indexing.
 */
function searchSql(
  columns: readonly string[],
  words: readonly string[],
  params: Param[],
  mode: SearchMode,
  d: Dialect,
): string {
  if (mode === 'row') {
    const parts = likeAll(
      columns.map((c) => `e.${c}`),
      words,
      params,
      d.like,
    );
    return parts.length === 0 ? d.true : `(${parts.join(' AND ')})`;
  }
  const { long, short } = splitWords(words);
  const parts: string[] = [];
  if (long.length > 0) {
    const filter = columns.length === TEXT_COLUMNS.length ? '' : `{${columns.join(' ')}} : `;
    params.push(long.map((w) => `${filter}"${w.replaceAll('"', '""')}"`).join(' AND '));
    const queued = likeAll(
      columns.map((c) => `q.${c}`),
      long,
      params,
    ).join(' AND ');
    parts.push(
      '+e.id IN (SELECT rowid FROM events_fts WHERE events_fts MATCH ? ' +
        'AND rowid NOT IN (SELECT id FROM events_fts_pending) ' +
        `UNION ALL SELECT q.id FROM events_fts_pending p JOIN events q ON q.id = p.id WHERE ${queued})`,
    );
  }
  parts.push(
    ...likeAll(
      columns.map((c) => `e.${c}`),
      short,
      params,
    ),
  );
  return parts.length === 0 ? '1' : `(${parts.join(' AND ')})`;
}

/** Events whose protected text the caller may search: unprotected ones, and those it may edit. */
function protectedTextOpenSql(access: ProtectedTextAccess | undefined, params: Param[]): string {
  const unprotected = "coalesce(e.password, '') = ''";
  if (access === undefined || access === 'all') return unprotected;
  params.push(access.ownerId);
  const own = access.unpublishedOnly
    ? "(e.author = ? AND e.status NOT IN ('publish', 'future', 'private'))"
    : 'e.author = ?';
  return `(${unprotected} OR ${own})`;
}

/**
 * How search words are matched: through the FTS index (a whole list), or with LIKE on each row (a few
 * given rows: the index answers for all events at once, ~10 ms, where LIKE on one row is µs). Both
 * match the same events: the index is a trigram index of the same substrings LIKE finds.
 */
type SearchMode = 'index' | 'row';

/** B.5: date bounds on UTC instants, hidden events out unless included, OR within a filter, AND across. */
export function eventListSql(q: EventQuery, d: Dialect = SQLITE): EventListSql | null {
  if (q.matchNothing) return null;
  if (q.searchWords && !searchable(q.searchWords)) return null;
  const lists = [q.include, q.categoryIds, q.tagIds, q.venueIds, q.organizerIds];
  if (lists.some((ids) => ids !== undefined && ids.length === 0)) return null;

  const params: Param[] = [];
  const where = eventFilterSql(q, params, d.search, d);
  const order = q.include
    ? `e.date_utc${d.nullsFirst}, e.id`
    : `e.start_utc, e.date_utc${d.nullsFirst}, e.id`;
  // The subquery runs as a co-routine, so the aggregate sees its rows in ORDER BY order; this is
  // ~3x cheaper than `json_group_array(id ORDER BY …)`, which sorts again (tested by the contract).
  const ids = `SELECT e.id FROM events e WHERE ${where} ORDER BY ${order}`;
  return {
    ids: `SELECT json_group_array(id) AS ids FROM (${ids})`,
    ordered: ids,
    params,
    // CROSS JOIN keeps the ids outside: each is one rowid lookup, not a scan of the list's index.
    members: () => {
      const memberParams: Param[] = [];
      const memberWhere = eventFilterSql(q, memberParams, 'row', d);
      return {
        sql: `SELECT e.id, e.start_utc, e.date_utc FROM json_each(?1) AS j CROSS JOIN events e ON e.id = j.value WHERE ${memberWhere}`,
        params: memberParams,
      };
    },
    order: q.include ? 'date' : 'start',
    usesSearchIndex: q.searchWords !== undefined && splitWords(q.searchWords).match !== null,
  };
}

/** The WHERE of an events list on alias `e`; pushes its parameters onto `params`. */
function eventFilterSql(q: EventQuery, params: Param[], mode: SearchMode, d: Dialect): string {
  const where = [visibilitySql('e', q.visibility, params, d)];
  if (q.include) {
    // B.5 include: exactly these ids, hidden ones too, date bounds ignored.
    where.push(inList('e.id', q.include, params));
  } else {
    if (!q.withHidden) where.push('e.hide_from_listings = 0');
    let started = false;
    for (const [key, clause] of START_BOUNDS) {
      const bound = q[key];
      if (bound !== undefined) {
        where.push(clause);
        params.push(bound);
        started = true;
      }
    }
    // With a start bound the covering `events_listed` index serves the scan in list order; a unary `+`
    // keeps SQLite from picking the narrower `events_end` index and sorting instead.
    const end = started ? `${d.noIndex}e.` : 'e.';
    for (const [key, clause] of END_BOUNDS) {
      const bound = q[key];
      if (bound !== undefined) {
        where.push(end + clause);
        params.push(bound);
      }
    }
  }
  if (q.featured !== undefined) where.push(`e.featured = ${q.featured ? 1 : 0}`);
  if (q.venueIds) where.push(inList('e.venue_id', q.venueIds, params));
  // An organizer or venue has few events: SQLite looks them up and sorts them. Categories, tags and
  // search words match many: each set is built once and probed while the list index is read in
  // order (`+e.id` is no lookup key), which also spares a sort.
  if (q.organizerIds) {
    const organizers = inList('organizer_id', q.organizerIds, params);
    where.push(`e.id IN (SELECT event_id FROM event_organizers WHERE ${organizers})`);
  }
  // Categories and tags share one id sequence, so one link table serves both lists.
  for (const ids of [q.categoryIds, q.tagIds]) {
    if (!ids) continue;
    where.push(
      `${d.noIndex}e.id IN (SELECT event_id FROM event_terms WHERE ${inList('term_id', ids, params)})`,
    );
  }
  if (q.searchWords) {
    if (q.protectedText === 'all') {
      where.push(searchSql(TEXT_COLUMNS, q.searchWords, params, mode, d));
    } else {
      // Protected events the caller cannot open match by their title alone (A.10).
      const open = protectedTextOpenSql(q.protectedText, params);
      const all = searchSql(TEXT_COLUMNS, q.searchWords, params, mode, d);
      const title = searchSql(['title'], q.searchWords, params, mode, d);
      where.push(`((${open} AND ${all}) OR ${title})`);
    }
  }
  return where.join(' AND ');
}

const LINKED = {
  venue: {
    table: 'venues',
    search: ['venue', 'description', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
    ofEvent: 'l.id = (SELECT venue_id FROM events WHERE id = ?)',
    /** Events linked to `l`, as `FROM … WHERE …` with the event alias `e`. */
    events: 'FROM events e WHERE e.venue_id = l.id',
  },
  organizer: {
    table: 'organizers',
    search: ['organizer', 'description', 'phone', 'email', 'website'],
    ofEvent: 'l.id IN (SELECT organizer_id FROM event_organizers WHERE event_id = ?)',
    events: 'FROM event_organizers eo JOIN events e ON e.id = eo.event_id WHERE eo.organizer_id = l.id',
  },
} as const;

/** `columns` is the select list of the linked table, alias `l`. */
export function linkedListSql(
  kind: LinkedKind,
  q: LinkedQuery,
  columns: string,
  d: Dialect = SQLITE,
): ListSql | null {
  if (q.searchWords && !searchable(q.searchWords)) return null;
  const spec = LINKED[kind];
  const params: Param[] = [];
  const where = [visibilitySql('l', q.visibility, params, d)];
  if (q.eventId !== undefined) {
    where.push(spec.ofEvent);
    params.push(q.eventId);
  }
  if (q.hasEvents !== undefined) {
    // false is the complement of true: linked to no *published* event.
    where.push(`${q.hasEvents ? '' : 'NOT '}EXISTS (SELECT 1 ${spec.events} AND e.status = 'publish')`);
  }
  if (q.upcomingAfter !== undefined) {
    const visible = visibilitySql('e', q.upcomingVisibility ?? q.visibility, params, d);
    where.push(`EXISTS (SELECT 1 ${spec.events} AND ${visible} AND e.end_utc > ?)`);
    params.push(q.upcomingAfter);
  }
  if (q.searchWords) {
    where.push(
      ...likeAll(
        spec.search.map((c) => `l.${c}`),
        q.searchWords,
        params,
        d.like,
      ),
    );
  }
  const filter = where.join(' AND ');
  return {
    page: `SELECT ${columns} FROM ${spec.table} l WHERE ${filter} ORDER BY l.date_utc DESC${d.nullsLast}, l.id DESC LIMIT ? OFFSET ?`,
    count: `SELECT count(*) AS n FROM ${spec.table} l WHERE ${filter}`,
    params,
  };
}

export const TERM_SELECT = 't.id, t.kind, t.name, t.slug, t.description, t.parent, t.count';

export function termListSql(q: TermQuery, d: Dialect = SQLITE): ListSql | null {
  if (q.include?.length === 0) return null;
  if (q.search !== undefined && !searchable(q.search)) return null;
  const params: Param[] = [q.kind];
  const where = ['t.kind = ?'];
  if (q.search !== undefined) {
    // name_key is lower-cased in JS, so non-ASCII letters match too; LIKE alone folds ASCII only.
    const like = `${d.like} ? ESCAPE '\\'`;
    where.push(`(t.name ${like} OR t.name_key ${like} OR t.slug ${like})`);
    params.push(likePattern(q.search), likePattern(q.search.toLowerCase()), likePattern(q.search));
  }
  if (q.include) where.push(inList('t.id', q.include, params));
  if (q.exclude && q.exclude.length > 0) where.push(`NOT ${inList('t.id', q.exclude, params)}`);
  if (q.parent !== undefined) {
    where.push('t.parent = ?');
    params.push(q.parent);
  }
  if (q.eventId !== undefined) {
    where.push('t.id IN (SELECT term_id FROM event_terms WHERE event_id = ?)');
    params.push(q.eventId);
  }
  if (q.slug !== undefined) {
    where.push('t.slug = ?');
    params.push(q.slug);
  }
  if (q.hideEmpty) where.push('t.count > 0');

  const dir = q.order === 'desc' ? 'DESC' : 'ASC';
  let order: string;
  if (q.orderby === 'include' && q.include) {
    // WordPress's FIELD(t.term_id, …): the position in the include list. Ids are validated integers.
    const cases = q.include.map((id, i) => `WHEN ${safeInt(id)} THEN ${i}`).join(' ');
    order = `CASE t.id ${cases} END ${dir}`;
  } else if (q.orderby === 'id') {
    order = `t.id ${dir}`;
  } else if (q.orderby === 'slug' || q.orderby === 'count') {
    order = `t.${q.orderby} ${dir}, t.id ${dir}`;
  } else {
    // `name`, and `include` without a list (WordPress falls back to name). Case-insensitive as MySQL.
    order = `t.name_key ${dir}, t.id ${dir}`;
  }
  const filter = where.join(' AND ');
  return {
    page: `SELECT ${TERM_SELECT} FROM terms t WHERE ${filter} ORDER BY ${order} LIMIT ? OFFSET ?`,
    count: `SELECT count(*) AS n FROM terms t WHERE ${filter}`,
    params,
  };
}

function safeInt(id: number): number {
  if (!Number.isSafeInteger(id)) throw new TypeError(`term id: expected an integer, got ${id}`);
  return id;
}
