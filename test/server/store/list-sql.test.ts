import { describe, expect, it } from 'vitest';
import { eventListSql, setPlan } from '../../../src/server/store/list-sql.ts';
import { eventQuery } from './contract/fixtures.ts';

describe('setPlan', () => {
  const base = { offset: 0, limit: 50, window: 3000, words: undefined };

  it('probes common terms: the page fills after a few hundred rows of the window', () => {
    expect(setPlan({ ...base, total: 300 })).toBe('probe');
  });

  it('looks rare terms and words up by id and sorts them', () => {
    expect(setPlan({ ...base, total: 3 })).toBe('lookup');
    expect(setPlan({ ...base, total: 3, words: ['zebra'] })).toBe('lookup');
  });

  it('scans the window with LIKE for ASCII words found in most events, not for others', () => {
    expect(setPlan({ ...base, total: 2500, words: ['jazz'] })).toBe('scan');
    expect(setPlan({ ...base, total: 2500, words: ['église'] })).toBe('probe');
    expect(setPlan({ ...base, total: 2500 })).toBe('probe');
  });

  it('deep pages read more of the window, so they scan less', () => {
    expect(setPlan({ ...base, offset: 2000, total: 2500, words: ['jazz'] })).toBe('probe');
  });
});

describe('eventListSql', () => {
  it('an empty id list or matchNothing needs no SQL at all', () => {
    expect(eventListSql(eventQuery({ matchNothing: true }))).toBeNull();
    expect(eventListSql(eventQuery({ tagIds: [] }))).toBeNull();
  });

  it('plans differ in how the page meets its sets: probed, looked up, or words tested by LIKE', () => {
    const q = eventQuery({ categoryIds: [3], searchWords: ['jazz', 'at'] });
    const probe = eventListSql(q)!;
    expect(probe).toMatchObject({ hasSets: true, usesSearchIndex: true });
    expect(probe.page).toContain('+e.id IN (SELECT event_id FROM event_terms');
    expect(eventListSql(q, 'lookup')!.page).not.toContain('+e.id');
    const scan = eventListSql(q, 'scan')!;
    expect(scan.usesSearchIndex).toBe(false);
    expect(scan.page).not.toContain('MATCH');
    expect(eventListSql(eventQuery({ venueIds: [4] }))!.hasSets).toBe(false);
  });
});
