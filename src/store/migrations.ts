/**
 * Schema migrations of the SQLite store, in code: an ordered list of steps, each applied in its own
 * transaction and recorded in `PRAGMA user_version` (SQLite's slot for exactly this). A file whose
 * version is higher than the last step here was written by a newer calsync and is refused rather than
 * guessed at. Never edit a released step: add the next one.
 *
 * Layout (migration 1):
 * - `posts` is only the shared id sequence of events, venues, organizers and attachments (A.0) with
 *   each id's kind; every kind keeps its whole record in its own table (`events`, `venues`, …) keyed by
 *   that id, so list queries never join a base table.
 * - `terms`: categories and tags, their own sequence. `count` (published events linked, B.11) is
 *   kept by triggers: `event_terms.published` mirrors the event's status, and every link inserted,
 *   deleted (cascades included) or re-flagged moves its term's count. Counting per read cost more
 *   than the rest of a list page: a page shows ~50 terms of ~1,000 events each.
 * - `name_key` columns hold the trimmed, lower-cased name for create-or-find (B.10.2) and term names.
 * - `events_fts`: FTS5 with the trigram tokenizer over title, description and excerpt; it answers
 *   the contract's case-insensitive substring search (B.5) for words of ≥ 3 characters. Triggers
 *   queue changed events in `events_fts_pending`; the store indexes the queue before a search.
 */
import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { StoreError } from './errors.ts';

export interface Migration {
  version: number;
  description: string;
  up(db: DatabaseSync): void;
}

const POST_COLUMNS = `
  author INTEGER NOT NULL,
  status TEXT NOT NULL,
  slug TEXT NOT NULL,
  date_utc TEXT,
  modified_utc TEXT NOT NULL,
  modified_set INTEGER NOT NULL,
  image_id INTEGER REFERENCES attachments (id) ON DELETE SET NULL`;

const SCHEMA_1 = `
CREATE TABLE posts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('event', 'venue', 'organizer', 'attachment'))
) STRICT;

CREATE TABLE attachments (
  id INTEGER PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  author INTEGER NOT NULL,
  url TEXT NOT NULL,
  source_url TEXT,
  mime TEXT NOT NULL,
  width INTEGER NOT NULL,
  height INTEGER NOT NULL,
  filesize INTEGER NOT NULL,
  date_utc TEXT NOT NULL
) STRICT;
CREATE INDEX attachments_url ON attachments (url);
CREATE INDEX attachments_source_url ON attachments (source_url) WHERE source_url IS NOT NULL;

CREATE TABLE venues (
  id INTEGER PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  venue TEXT NOT NULL,
  name_key TEXT NOT NULL,
  description TEXT NOT NULL,
  address TEXT NOT NULL,
  city TEXT NOT NULL,
  country TEXT NOT NULL,
  province TEXT NOT NULL,
  state TEXT NOT NULL,
  zip TEXT NOT NULL,
  phone TEXT NOT NULL,
  stateprovince TEXT NOT NULL,
  website TEXT NOT NULL,
  show_map INTEGER NOT NULL,
  show_map_link INTEGER NOT NULL
) STRICT;
CREATE INDEX venues_slug ON venues (slug);
CREATE INDEX venues_name ON venues (name_key);
CREATE INDEX venues_date ON venues (date_utc, id);
CREATE INDEX venues_author ON venues (author);

CREATE TABLE organizers (
  id INTEGER PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  organizer TEXT NOT NULL,
  name_key TEXT NOT NULL,
  description TEXT NOT NULL,
  phone TEXT NOT NULL,
  website TEXT NOT NULL,
  email TEXT NOT NULL
) STRICT;
CREATE INDEX organizers_slug ON organizers (slug);
CREATE INDEX organizers_name ON organizers (name_key);
CREATE INDEX organizers_date ON organizers (date_utc, id);
CREATE INDEX organizers_author ON organizers (author);

CREATE TABLE events (
  id INTEGER PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  ${POST_COLUMNS},
  title TEXT NOT NULL,
  description TEXT NOT NULL,
  excerpt TEXT NOT NULL,
  timezone TEXT NOT NULL,
  all_day INTEGER NOT NULL,
  start_local TEXT NOT NULL,
  end_local TEXT NOT NULL,
  start_utc TEXT NOT NULL,
  end_utc TEXT NOT NULL,
  cost TEXT,
  website TEXT,
  show_map INTEGER NOT NULL,
  show_map_link INTEGER NOT NULL,
  hide_from_listings INTEGER NOT NULL,
  sticky INTEGER NOT NULL,
  featured INTEGER NOT NULL,
  venue_id INTEGER REFERENCES venues (id) ON DELETE SET NULL,
  password TEXT
) STRICT;
-- The list order (B.5) with the columns every list filters on, so reading a list's ordered ids
-- touches the index alone; hidden events are never listed without include, so they stay out of it.
CREATE INDEX events_listed ON events (start_utc, date_utc, id, end_utc, status, author, featured)
  WHERE hide_from_listings = 0;
CREATE INDEX events_end ON events (end_utc) WHERE hide_from_listings = 0;
CREATE INDEX events_slug ON events (slug);
CREATE INDEX events_venue ON events (venue_id, status, end_utc);
CREATE INDEX events_author ON events (author, status);

CREATE TABLE event_organizers (
  event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  organizer_id INTEGER NOT NULL REFERENCES organizers (id) ON DELETE CASCADE,
  PRIMARY KEY (event_id, position)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX event_organizers_organizer ON event_organizers (organizer_id, event_id);

CREATE TABLE terms (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('categories', 'tags')),
  name TEXT NOT NULL,
  name_key TEXT NOT NULL,
  slug TEXT NOT NULL,
  description TEXT NOT NULL,
  parent INTEGER NOT NULL DEFAULT 0,
  count INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX terms_slug ON terms (kind, slug);
CREATE INDEX terms_name ON terms (kind, name_key, parent);
CREATE INDEX terms_parent ON terms (parent);

CREATE TABLE event_terms (
  event_id INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  term_id INTEGER NOT NULL REFERENCES terms (id) ON DELETE CASCADE,
  -- 1 while the event is published; the term counts follow it.
  published INTEGER NOT NULL,
  PRIMARY KEY (event_id, position)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX event_terms_term ON event_terms (term_id, event_id);

CREATE TRIGGER events_published AFTER UPDATE OF status ON events
  WHEN (old.status = 'publish') <> (new.status = 'publish')
BEGIN
  UPDATE event_terms SET published = (new.status = 'publish') WHERE event_id = new.id;
END;
CREATE TRIGGER event_terms_counted AFTER INSERT ON event_terms WHEN new.published = 1 BEGIN
  UPDATE terms SET count = count + 1 WHERE id = new.term_id;
END;
CREATE TRIGGER event_terms_uncounted AFTER DELETE ON event_terms WHEN old.published = 1 BEGIN
  UPDATE terms SET count = count - 1 WHERE id = old.term_id;
END;
CREATE TRIGGER event_terms_recounted AFTER UPDATE OF published ON event_terms
  WHEN old.published <> new.published
BEGIN
  UPDATE terms SET count = count + iif(new.published = 1, 1, -1) WHERE id = new.term_id;
END;

-- Contentless with row deletes: the index needs no copy of the text and no old values to forget a
-- row. Writes only queue the event id (an FTS5 commit costs ~0.5 ms, twice an event insert); the
-- store indexes the queue in one batch before the next search (sqlite-events.ts).
CREATE VIRTUAL TABLE events_fts USING fts5 (
  title, description, excerpt,
  content = '', contentless_delete = 1, tokenize = 'trigram'
);
CREATE TABLE events_fts_pending (id INTEGER PRIMARY KEY) STRICT;
CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
  INSERT OR IGNORE INTO events_fts_pending (id) VALUES (new.id);
END;
CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
  INSERT OR IGNORE INTO events_fts_pending (id) VALUES (old.id);
END;
CREATE TRIGGER events_fts_update AFTER UPDATE OF title, description, excerpt ON events
  WHEN old.title IS NOT new.title OR old.description IS NOT new.description
    OR old.excerpt IS NOT new.excerpt
BEGIN
  INSERT OR IGNORE INTO events_fts_pending (id) VALUES (new.id);
END;

CREATE TABLE users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  login TEXT NOT NULL,
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  display_name TEXT NOT NULL
) STRICT;
CREATE UNIQUE INDEX users_login ON users (login COLLATE NOCASE);
CREATE INDEX users_email ON users (email COLLATE NOCASE);

CREATE TABLE app_passwords (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  hash TEXT NOT NULL,
  created_utc TEXT NOT NULL,
  last_used_utc TEXT
) STRICT;
CREATE INDEX app_passwords_user ON app_passwords (user_id);
`;

/**
 * Migration 5, for the .ics feeds (src/export, RFC 5545 §3.8.7.4): `event_sequences` counts the changes
 * of an event's time or status (its SEQUENCE; no row = 0), bumped by a BEFORE trigger so the tombstone
 * triggers below already see the new number. `event_tombstones` keeps a snapshot of every event that
 * stops being published (trash, draft, …) or is deleted while published, so feeds can say
 * STATUS:CANCELLED for a while instead of letting the event silently vanish (calendar apps keep
 * vanished events forever). Republishing removes the tombstone. Post ids are never reused
 * (AUTOINCREMENT), so the id is the tombstone's key.
 */
const SCHEMA_5 = `
CREATE TABLE event_sequences (
  event_id INTEGER PRIMARY KEY,
  sequence INTEGER NOT NULL
) STRICT;
CREATE TABLE event_tombstones (
  id INTEGER PRIMARY KEY,
  removed_utc TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  title TEXT NOT NULL,
  timezone TEXT NOT NULL,
  all_day INTEGER NOT NULL,
  start_local TEXT NOT NULL,
  end_local TEXT NOT NULL,
  start_utc TEXT NOT NULL,
  end_utc TEXT NOT NULL,
  date_utc TEXT,
  venue_id INTEGER,
  featured INTEGER NOT NULL,
  organizer_ids TEXT NOT NULL,
  term_ids TEXT NOT NULL
) STRICT;
CREATE INDEX event_tombstones_removed ON event_tombstones (removed_utc);

CREATE TRIGGER event_sequence_bump BEFORE UPDATE ON events
  WHEN old.start_utc IS NOT new.start_utc OR old.end_utc IS NOT new.end_utc OR old.all_day IS NOT new.all_day
    OR old.timezone IS NOT new.timezone OR old.status IS NOT new.status
BEGIN
  INSERT INTO event_sequences (event_id, sequence) VALUES (new.id, 1)
    ON CONFLICT (event_id) DO UPDATE SET sequence = sequence + 1;
END;
CREATE TRIGGER event_tombstone_unpublished AFTER UPDATE OF status ON events
  WHEN old.status = 'publish' AND new.status <> 'publish'
BEGIN
  INSERT OR REPLACE INTO event_tombstones
  SELECT new.id, strftime('%Y-%m-%d %H:%M:%S', 'now'),
    coalesce((SELECT sequence FROM event_sequences WHERE event_id = new.id), 0),
    new.title, new.timezone, new.all_day, new.start_local, new.end_local, new.start_utc, new.end_utc,
    new.date_utc, new.venue_id, new.featured,
    (SELECT json_group_array(organizer_id) FROM event_organizers WHERE event_id = new.id),
    (SELECT json_group_array(term_id) FROM event_terms WHERE event_id = new.id);
END;
CREATE TRIGGER event_tombstone_republished AFTER UPDATE OF status ON events
  WHEN new.status = 'publish' AND old.status <> 'publish'
BEGIN
  DELETE FROM event_tombstones WHERE id = new.id;
END;
-- BEFORE: the event's links still exist (they go by cascade). A deletion is one more change.
CREATE TRIGGER event_tombstone_deleted BEFORE DELETE ON events
BEGIN
  UPDATE event_tombstones
    SET sequence = coalesce((SELECT sequence FROM event_sequences WHERE event_id = old.id), sequence) + 1
    WHERE id = old.id;
  INSERT OR REPLACE INTO event_tombstones
  SELECT old.id, strftime('%Y-%m-%d %H:%M:%S', 'now'),
    coalesce((SELECT sequence FROM event_sequences WHERE event_id = old.id), 0) + 1,
    old.title, old.timezone, old.all_day, old.start_local, old.end_local, old.start_utc, old.end_utc,
    old.date_utc, old.venue_id, old.featured,
    (SELECT json_group_array(organizer_id) FROM event_organizers WHERE event_id = old.id),
    (SELECT json_group_array(term_id) FROM event_terms WHERE event_id = old.id)
  WHERE old.status = 'publish';
  DELETE FROM event_sequences WHERE event_id = old.id;
END;
`;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'posts, events, venues, organizers, attachments, terms, users, app passwords, event search',
    up: (db) => db.exec(SCHEMA_1),
  },
  {
    version: 2,
    description: 'intermediate image sizes of attachments',
    // A JSON object keyed by size name (A.4), `{}` for attachments stored before it existed.
    up: (db) => db.exec(`ALTER TABLE attachments ADD COLUMN sizes TEXT NOT NULL DEFAULT '{}'`),
  },
  {
    version: 3,
    description: 'indexes of scheduled posts, for publishing them when their date comes',
    up: (db) =>
      db.exec(`
        CREATE INDEX events_scheduled ON events (date_utc) WHERE status = 'future';
        CREATE INDEX venues_scheduled ON venues (date_utc) WHERE status = 'future';
        CREATE INDEX organizers_scheduled ON organizers (date_utc) WHERE status = 'future';`),
  },
  {
    version: 4,
    description: 'OAuth clients and the token signing key',
    // B.2 client credentials: a client acts as one user and goes with it. `signing_keys` holds the
    // HS256 key, generated once, so that tokens outlive a restart.
    up: (db) =>
      db.exec(`
        CREATE TABLE oauth_clients (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          client_id TEXT NOT NULL UNIQUE,
          secret_hash TEXT NOT NULL,
          user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
          name TEXT NOT NULL,
          created_utc TEXT NOT NULL,
          revoked INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE INDEX oauth_clients_user ON oauth_clients (user_id);
        CREATE TABLE signing_keys (name TEXT PRIMARY KEY, key BLOB NOT NULL) STRICT;`),
  },
  {
    version: 5,
    description: 'event sequence numbers and tombstones of unpublished or deleted events, for feeds',
    up: (db) => db.exec(SCHEMA_5),
  },
  {
    version: 6,
    description: "the currency code of an event's cost",
    // ISO 4217 (`EUR`), as TEC's `_EventCurrencyCode`; `''` for the events stored before it existed.
    up: (db) => db.exec(`ALTER TABLE events ADD COLUMN currency_code TEXT NOT NULL DEFAULT ''`),
  },
  {
    version: 7,
    description: "the store's instance id",
    // Random, made once per database file: a sync state records the instance its ids belong to, and
    // forgets them when the data file was deleted or replaced (state/sync-state.ts `bind`).
    up: (db) => {
      db.exec('CREATE TABLE store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT');
      db.prepare(`INSERT INTO store_meta VALUES ('instance', ?)`).run(randomUUID());
    },
  },
];

export function schemaVersion(db: DatabaseSync): number {
  const row = db.prepare('PRAGMA user_version').get() as { user_version: number };
  return row.user_version;
}

/**
 * Brings `db` up to the last step of `migrations` (sorted by version, no gaps); returns the
 * versions applied. `path` only names the file in errors.
 */
export function migrate(
  db: DatabaseSync,
  migrations: readonly Migration[] = MIGRATIONS,
  path = '',
): number[] {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > latest) {
    throw new StoreError(
      'store-schema-too-new',
      `database ${path || '(memory)'} has schema version ${current}, this calsync knows versions up to ${latest}: ` +
        'it was written by a newer calsync; upgrade calsync or use another database file',
      { path },
    );
  }
  const applied: number[] = [];
  for (const step of migrations) {
    if (step.version <= current) continue;
    db.exec('BEGIN IMMEDIATE');
    try {
      step.up(db);
      // PRAGMA takes no parameters; the version is an integer from this file.
      db.exec(`PRAGMA user_version = ${Math.trunc(step.version)}`);
      db.exec('COMMIT');
    } catch (cause) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw new StoreError(
        'store-migration-failed',
        `database ${path || '(memory)'}: migration ${step.version} (${step.description}) failed: ${String(cause)}`,
        { path, cause },
      );
    }
    applied.push(step.version);
  }
  return applied;
}
