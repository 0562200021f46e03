/**
 * Schema migrations of the PostgreSQL store: ordered steps, recorded in `calsync_schema (version,
 * description, applied_utc)`, the missing ones applied together in one transaction (PostgreSQL's DDL is
 * transactional: a step that fails leaves the database as it was). A database whose version is higher
 * than the last step here was written by a newer calsync and is refused. Never edit a released step: add
 * the next one. Steps run under an advisory lock, so servers starting together migrate once.
 *
 * The layout is the SQLite store's (migrations.ts), so rows map to records with the same code (rows.ts):
 * - booleans are `integer` 0/1 and date-times `YYYY-MM-DD HH:MM:SS` text, compared as strings;
 * - every text column is `COLLATE "C"`: byte order, as SQLite's, whatever the database's locale (names,
 *   slugs and instants sort the same on both stores);
 * - term counts, SEQUENCEs and tombstones are kept by triggers (PL/pgSQL here);
 * - search (B.5): a case-insensitive substring per word, answered by `ILIKE '%word%'`, which pg_trgm's
 *   GIN indexes serve for words of ≥ 3 characters — the same trigram idea as SQLite's FTS5 index, but
 *   PostgreSQL keeps it up to date inside each write's transaction, so there is no queue to drain.
 */
import type { PoolClient } from 'pg';
import { StoreError } from './errors.ts';
import type { Op, SchemaFacts } from './table-changes.ts';

export interface PgMigration {
  version: number;
  description: string;
  sql: string;
}

/** The advisory lock key of migrations (any constant of ours: 'cals' in ASCII). */
const MIGRATION_LOCK = 0x63616c73;

const T = 'text COLLATE "C"';

const POST_COLUMNS = `
  author integer NOT NULL,
  status ${T} NOT NULL,
  slug ${T} NOT NULL,
  date_utc ${T},
  modified_utc ${T} NOT NULL,
  modified_set integer NOT NULL,
  image_id integer REFERENCES attachments (id) ON DELETE SET NULL`;

const TABLES = `
CREATE TABLE posts (
  id serial PRIMARY KEY,
  kind ${T} NOT NULL CHECK (kind IN ('event', 'venue', 'organizer', 'attachment'))
);
CREATE TABLE attachments (
  id integer PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  author integer NOT NULL,
  url ${T} NOT NULL,
  source_url ${T},
  mime ${T} NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  filesize integer NOT NULL,
  sizes ${T} NOT NULL DEFAULT '{}',
  date_utc ${T} NOT NULL
);
CREATE INDEX attachments_url ON attachments (url);
CREATE INDEX attachments_source_url ON attachments (source_url) WHERE source_url IS NOT NULL;

CREATE TABLE venues (
  id integer PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  venue ${T} NOT NULL,
  name_key ${T} NOT NULL,
  description ${T} NOT NULL,
  address ${T} NOT NULL,
  city ${T} NOT NULL,
  country ${T} NOT NULL,
  province ${T} NOT NULL,
  state ${T} NOT NULL,
  zip ${T} NOT NULL,
  phone ${T} NOT NULL,
  stateprovince ${T} NOT NULL,
  website ${T} NOT NULL,
  show_map integer NOT NULL,
  show_map_link integer NOT NULL
);
CREATE INDEX venues_slug ON venues (slug);
CREATE INDEX venues_name ON venues (name_key);
CREATE INDEX venues_date ON venues (date_utc, id);
CREATE INDEX venues_scheduled ON venues (date_utc) WHERE status = 'future';

CREATE TABLE organizers (
  id integer PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  organizer ${T} NOT NULL,
  name_key ${T} NOT NULL,
  description ${T} NOT NULL,
  phone ${T} NOT NULL,
  website ${T} NOT NULL,
  email ${T} NOT NULL
);
CREATE INDEX organizers_slug ON organizers (slug);
CREATE INDEX organizers_name ON organizers (name_key);
CREATE INDEX organizers_date ON organizers (date_utc, id);
CREATE INDEX organizers_scheduled ON organizers (date_utc) WHERE status = 'future';

CREATE TABLE events (
  id integer PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  title ${T} NOT NULL,
  description ${T} NOT NULL,
  excerpt ${T} NOT NULL,
  timezone ${T} NOT NULL,
  all_day integer NOT NULL,
  start_local ${T} NOT NULL,
  end_local ${T} NOT NULL,
  start_utc ${T} NOT NULL,
  end_utc ${T} NOT NULL,
  cost ${T},
  website ${T},
  show_map integer NOT NULL,
  show_map_link integer NOT NULL,
  hide_from_listings integer NOT NULL,
  sticky integer NOT NULL,
  featured integer NOT NULL,
  venue_id integer REFERENCES venues (id) ON DELETE SET NULL,
  password ${T},
  currency_code ${T} NOT NULL DEFAULT ''
);
CREATE INDEX events_listed ON events (start_utc, date_utc NULLS FIRST, id) WHERE hide_from_listings = 0;
CREATE INDEX events_end ON events (end_utc) WHERE hide_from_listings = 0;
CREATE INDEX events_slug ON events (slug);
CREATE INDEX events_venue ON events (venue_id, status, end_utc);
CREATE INDEX events_author ON events (author, status);
CREATE INDEX events_scheduled ON events (date_utc) WHERE status = 'future';

CREATE TABLE event_organizers (
  event_id integer NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  position integer NOT NULL,
  organizer_id integer NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  PRIMARY KEY (event_id, position)
);
CREATE UNIQUE INDEX event_organizers_organizer ON event_organizers (organizer_id, event_id);

CREATE TABLE terms (
  id serial PRIMARY KEY,
  kind ${T} NOT NULL CHECK (kind IN ('categories', 'tags')),
  name ${T} NOT NULL,
  name_key ${T} NOT NULL,
  slug ${T} NOT NULL,
  description ${T} NOT NULL,
  parent integer NOT NULL DEFAULT 0,
  count integer NOT NULL DEFAULT 0
);
CREATE INDEX terms_slug ON terms (kind, slug);
CREATE INDEX terms_name ON terms (kind, name_key, parent);
CREATE INDEX terms_parent ON terms (parent);

CREATE TABLE event_terms (
  event_id integer NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  position integer NOT NULL,
  term_id integer NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
  published integer NOT NULL,
  PRIMARY KEY (event_id, position)
);
CREATE UNIQUE INDEX event_terms_term ON event_terms (term_id, event_id);

CREATE TABLE users (
  id serial PRIMARY KEY,
  login ${T} NOT NULL,
  email ${T} NOT NULL,
  role ${T} NOT NULL,
  display_name ${T} NOT NULL
);
-- SQLite's NOCASE folds ASCII only; lower() under the C collation does the same.
CREATE UNIQUE INDEX users_login ON users (lower(login));
CREATE INDEX users_email ON users (lower(email));

CREATE TABLE app_passwords (
  id serial PRIMARY KEY,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name ${T} NOT NULL,
  hash ${T} NOT NULL,
  created_utc ${T} NOT NULL,
  last_used_utc ${T}
);
CREATE INDEX app_passwords_user ON app_passwords (user_id);

CREATE TABLE oauth_clients (
  id serial PRIMARY KEY,
  client_id ${T} NOT NULL UNIQUE,
  secret_hash ${T} NOT NULL,
  user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name ${T} NOT NULL,
  created_utc ${T} NOT NULL,
  revoked integer NOT NULL DEFAULT 0
);
CREATE INDEX oauth_clients_user ON oauth_clients (user_id);
CREATE TABLE signing_keys (name ${T} PRIMARY KEY, key bytea NOT NULL);

CREATE TABLE event_sequences (
  event_id integer PRIMARY KEY,
  sequence integer NOT NULL
);
CREATE TABLE event_tombstones (
  id integer PRIMARY KEY,
  removed_utc ${T} NOT NULL,
  sequence integer NOT NULL,
  title ${T} NOT NULL,
  timezone ${T} NOT NULL,
  all_day integer NOT NULL,
  start_local ${T} NOT NULL,
  end_local ${T} NOT NULL,
  start_utc ${T} NOT NULL,
  end_utc ${T} NOT NULL,
  date_utc ${T},
  venue_id integer,
  featured integer NOT NULL,
  organizer_ids ${T} NOT NULL,
  term_ids ${T} NOT NULL
);
CREATE INDEX event_tombstones_removed ON event_tombstones (removed_utc);
`;

/** The SQLite store's triggers (migrations.ts), one function per trigger. */
const TRIGGERS = `
CREATE FUNCTION events_published() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE event_terms SET published = (new.status = 'publish')::int WHERE event_id = new.id;
  RETURN NULL;
END $$;
CREATE TRIGGER events_published AFTER UPDATE OF status ON events FOR EACH ROW
  WHEN ((old.status = 'publish') <> (new.status = 'publish')) EXECUTE FUNCTION events_published();

CREATE FUNCTION event_terms_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') AND old.published = 1 THEN
    UPDATE terms SET count = count - 1 WHERE id = old.term_id;
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') AND new.published = 1 THEN
    UPDATE terms SET count = count + 1 WHERE id = new.term_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER event_terms_count AFTER INSERT OR DELETE OR UPDATE OF published ON event_terms
  FOR EACH ROW EXECUTE FUNCTION event_terms_count();

-- SEQUENCE (RFC 5545 §3.8.7.4): BEFORE, so the tombstone triggers below already see the new number.
CREATE FUNCTION event_sequence_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO event_sequences (event_id, sequence) VALUES (new.id, 1)
    ON CONFLICT (event_id) DO UPDATE SET sequence = event_sequences.sequence + 1;
  RETURN new;
END $$;
CREATE TRIGGER event_sequence_bump BEFORE UPDATE ON events FOR EACH ROW
  WHEN (old.start_utc IS DISTINCT FROM new.start_utc OR old.end_utc IS DISTINCT FROM new.end_utc
    OR old.all_day IS DISTINCT FROM new.all_day OR old.timezone IS DISTINCT FROM new.timezone
    OR old.status IS DISTINCT FROM new.status)
  EXECUTE FUNCTION event_sequence_bump();

CREATE FUNCTION event_tombstone(e events, bump integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO event_tombstones
  SELECT e.id, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),
    coalesce((SELECT sequence FROM event_sequences WHERE event_id = e.id), 0) + bump,
    e.title, e.timezone, e.all_day, e.start_local, e.end_local, e.start_utc, e.end_utc,
    e.date_utc, e.venue_id, e.featured,
    (SELECT coalesce(json_agg(organizer_id ORDER BY position), '[]')::text FROM event_organizers WHERE event_id = e.id),
    (SELECT coalesce(json_agg(term_id ORDER BY position), '[]')::text FROM event_terms WHERE event_id = e.id)
  ON CONFLICT (id) DO UPDATE SET removed_utc = excluded.removed_utc, sequence = excluded.sequence,
    title = excluded.title, timezone = excluded.timezone, all_day = excluded.all_day,
    start_local = excluded.start_local, end_local = excluded.end_local, start_utc = excluded.start_utc,
    end_utc = excluded.end_utc, date_utc = excluded.date_utc, venue_id = excluded.venue_id,
    featured = excluded.featured, organizer_ids = excluded.organizer_ids, term_ids = excluded.term_ids;
$$;

CREATE FUNCTION event_tombstone_status() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF old.status = 'publish' AND new.status <> 'publish' THEN
    PERFORM event_tombstone(new, 0);
  ELSIF new.status = 'publish' AND old.status <> 'publish' THEN
    DELETE FROM event_tombstones WHERE id = new.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER event_tombstone_status AFTER UPDATE OF status ON events FOR EACH ROW
  EXECUTE FUNCTION event_tombstone_status();

-- BEFORE: the event's links still exist (they go by cascade). A deletion is one more change.
CREATE FUNCTION event_tombstone_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE event_tombstones
    SET sequence = coalesce((SELECT sequence FROM event_sequences WHERE event_id = old.id), sequence) + 1
    WHERE id = old.id;
  IF old.status = 'publish' THEN
    PERFORM event_tombstone(old, 1);
  END IF;
  DELETE FROM event_sequences WHERE event_id = old.id;
  RETURN old;
END $$;
CREATE TRIGGER event_tombstone_deleted BEFORE DELETE ON events FOR EACH ROW
  EXECUTE FUNCTION event_tombstone_deleted();
`;

/** pg_trgm is a trusted extension (PostgreSQL ≥ 13): a database owner may create it. */
const SEARCH = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX events_search ON events
  USING gin (title gin_trgm_ops, description gin_trgm_ops, excerpt gin_trgm_ops);
`;

/**
 * Demo mode's resets (embedded/demo-postgres.ts): the 00:00 UTC each was due at, the sample it loaded
 * (SHA-256 of the file), when it ran and how many events it loaded — so that several servers on one
 * database reset it once per due time. calsync's bookkeeping, never content: a reset keeps it.
 */
const DEMO_RESETS = `
CREATE TABLE calsync_demo_resets (
  due_utc ${T} PRIMARY KEY,
  sample ${T} NOT NULL,
  reset_utc ${T} NOT NULL,
  events integer NOT NULL
);
`;

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    description:
      'posts, events, venues, organizers, attachments, terms, users, passwords, OAuth, feed history',
    sql: TABLES,
  },
  { version: 2, description: 'term counts, event sequences and tombstones kept by triggers', sql: TRIGGERS },
  {
    version: 3,
    description: 'trigram (pg_trgm) index of event titles, descriptions and excerpts',
    sql: SEARCH,
  },
  { version: 4, description: "demo mode's resets, one per due time across servers", sql: DEMO_RESETS },
];

/** The version the database is at (0 when calsync never wrote to it). */
async function schemaVersion(client: PoolClient): Promise<number> {
  await client.query(
    `CREATE TABLE IF NOT EXISTS calsync_schema (version integer PRIMARY KEY, description text NOT NULL,
      applied_utc text NOT NULL)`,
  );
  const r = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM calsync_schema');
  return r.rows[0].v ?? 0;
}

/** Brings the database up to the last step of `migrations`; returns the versions applied. */
export async function migratePostgres(
  client: PoolClient,
  where: string,
  migrations: readonly PgMigration[] = PG_MIGRATIONS,
): Promise<number[]> {
  const latest = migrations.at(-1)?.version ?? 0;
  const applied: number[] = [];
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const current = await schemaVersion(client);
    if (current > latest) {
      throw new StoreError(
        'store-schema-too-new',
        `database ${where} has schema version ${current}, this calsync knows versions up to ${latest}: ` +
          'it was written by a newer calsync; upgrade calsync or use another database',
        { path: where },
      );
    }
    for (const step of migrations) {
      if (step.version <= current) continue;
      try {
        await client.query(step.sql);
      } catch (cause) {
        throw new StoreError(
          'store-migration-failed',
          `database ${where}: migration ${step.version} (${step.description}) failed: ${String(cause)}`,
          { path: where, cause },
        );
      }
      await client.query(
        `INSERT INTO calsync_schema VALUES ($1, $2, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'))`,
        [step.version, step.description],
      );
      applied.push(step.version);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return applied;
}

/**
 * The catalogue of the store's schema as `SchemaFacts` (table-changes.ts), read once when the store opens:
 * which tables a write changes, through triggers (their functions' bodies, and the bodies of the functions
 * those call, such as `event_tombstone`) and foreign keys.
 */
export async function postgresSchema(client: PoolClient): Promise<SchemaFacts> {
  const tables = await client.query<{ name: string }>(
    'SELECT lower(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()',
  );
  const functions = await client.query<{ name: string; body: string }>(
    'SELECT p.proname AS name, p.prosrc AS body FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace ' +
      "WHERE n.nspname = current_schema() AND p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))",
  );
  const triggers = await client.query<{ tbl: string; def: string; body: string }>(
    'SELECT lower(c.relname) AS tbl, pg_get_triggerdef(t.oid) AS def, p.prosrc AS body FROM pg_trigger t ' +
      'JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid ' +
      'JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND n.nspname = current_schema()',
  );
  const keys = await client.query<{ child: string; parent: string }>(
    'SELECT lower(c.relname) AS child, lower(p.relname) AS parent FROM pg_constraint k ' +
      'JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid ' +
      "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE k.contype = 'f' AND n.nspname = current_schema()",
  );
  const called = (body: string) =>
    functions.rows.filter((f) => new RegExp(`\\b${f.name}\\s*\\(`).test(body)).map((f) => f.body);
  return {
    tables: tables.rows.map((r) => r.name),
    triggers: triggers.rows.map((r) => {
      const head = r.def.slice(0, r.def.search(/\bEXECUTE\b/i));
      const events = [...head.matchAll(/\b(INSERT|UPDATE|DELETE)\b/gi)].map((m) => m[1].toLowerCase() as Op);
      return { table: r.tbl, events, body: [r.body, ...called(r.body)].join('\n') };
    }),
    foreignKeys: keys.rows,
  };
}
