/**
 * The feed history area of the store: what .ics subscribers must be told beyond the current events — the
 * SEQUENCE of each event and tombstones of events that stopped being public (STATUS:CANCELLED).
 */
import type { EventRecord } from './content.ts';

/**
 * What a feed still knows of an event that stopped being published or was deleted (migration 5): enough
 * for a STATUS:CANCELLED entry and for the feed's filters. `removed_utc` is when it left.
 */
export interface EventTombstone
  extends Pick<
    EventRecord,
    | 'id'
    | 'title'
    | 'timezone'
    | 'all_day'
    | 'start_local'
    | 'end_local'
    | 'start_utc'
    | 'end_utc'
    | 'date_utc'
    | 'venue_id'
    | 'featured'
    | 'organizer_ids'
  > {
  removed_utc: string;
  sequence: number;
  /** Categories and tags (one id sequence). */
  term_ids: number[];
}

export interface FeedHistoryStore {
  /** SEQUENCE of each event (RFC 5545 §3.8.7.4): how often its time or status changed; 0 if never. */
  eventSequences(ids: readonly number[]): Promise<Map<number, number>>;
  /** Tombstones of events removed at or after `sinceUtc` and not published again, oldest first. */
  eventTombstones(sinceUtc: string): Promise<EventTombstone[]>;
  /** Forgets tombstones removed before `beforeUtc`; returns how many. */
  pruneEventTombstones(beforeUtc: string): Promise<number>;
}
