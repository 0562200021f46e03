/**
 * fileRunSpec: the run demo mode, the benchmarks and the end-to-end tests make of one file must be the
 * run a pipeline file naming only that source gets (src/pipeline/definition.ts defaults), so that a
 * changed default changes both.
 */
import { describe, expect, it } from 'vitest';
import { fileRunSpec } from '../../src/pipeline/file-run-spec.ts';
import { parsePipeline } from '../../src/pipeline/load.ts';

const base = {
  name: 'club',
  source: { type: 'ics' as const, path: '/srv/club.ics' },
  stateFile: 's.db',
  targetLabel: 'local',
};

describe('fileRunSpec', () => {
  it('gives a file the mapping, window and policies a pipeline file without them gets (its zone aside)', () => {
    const p = parsePipeline('name: club\nsource: { type: ics, path: club.ics }\n', '/srv/club.yaml', {});
    const spec = fileRunSpec(base);
    const { timezone, ...mapping } = p.mapping;
    expect(timezone).toBe('UTC');
    // No zone: the run reads floating times in the calendar's own X-WR-TIMEZONE, as `npm run import` does.
    expect(spec.mapping).toEqual(mapping);
    expect(spec.window).toEqual({ pastDays: p.window.past_days, futureDays: p.window.future_days });
    expect(spec.policies).toEqual({
      update: p.policies.update,
      delete: p.policies.delete,
      maxDeleteRatio: p.policies.max_delete_ratio,
    });
    expect(spec).toMatchObject(base);
  });

  it('takes what the caller states over the defaults, and leaves a field given as undefined at its default', () => {
    const spec = fileRunSpec({
      ...base,
      mapping: { timezone: 'Europe/Berlin', categories: ['Music'], featured: undefined },
      policies: { delete: 'keep', update: undefined },
      window: { futureDays: 90 },
    });
    expect(spec.mapping).toMatchObject({ timezone: 'Europe/Berlin', categories: ['Music'], featured: false });
    expect(spec.policies).toEqual({ update: 'overwrite', delete: 'keep', maxDeleteRatio: 0.25 });
    expect(spec.window).toEqual({ pastDays: 30, futureDays: 90 });
  });
});
