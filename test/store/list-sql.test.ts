import { describe, expect, it } from 'vitest';
import { eventListSql, termListSql } from '../../src/store/list-sql.ts';
import { eventQuery } from './contract/fixtures.ts';

describe('eventListSql', () => {
  it('an empty id list or matchNothing needs no SQL at all', () => {
    expect(eventListSql(eventQuery({ matchNothing: true }))).toBeNull();
    expect(eventListSql(eventQuery({ tagIds: [] }))).toBeNull();
    expect(eventListSql(eventQuery({ include: [] }))).toBeNull();
  });

  it('only words of three characters or more use the search index', () => {
    expect(eventListSql(eventQuery({ searchWords: ['at', 'jazz'] }))!.usesSearchIndex).toBe(true);
    expect(eventListSql(eventQuery({ searchWords: ['at', 'é'] }))!.usesSearchIndex).toBe(false);
  });

  it('term and word sets are probed while the list index is read in order, never used as lookup keys', () => {
    const sql = eventListSql(
      eventQuery({ categoryIds: [3], searchWords: ['jazz'], startFrom: '2027-01-01' }),
    )!;
    expect(sql.ids).toContain('+e.id IN (SELECT event_id FROM event_terms');
    expect(sql.ids).toContain('+e.id IN (SELECT rowid FROM events_fts');
  });
});

describe('termListSql', () => {
  it('an empty include list needs no SQL; an empty exclude list excludes nothing', () => {
    const q = {
      kind: 'tags',
      offset: 0,
      limit: 10,
      order: 'asc',
      orderby: 'name',
      hideEmpty: false,
    } as const;
    expect(termListSql({ ...q, include: [] })).toBeNull();
    expect(termListSql({ ...q, exclude: [] })!.count).not.toContain('NOT');
  });
});
