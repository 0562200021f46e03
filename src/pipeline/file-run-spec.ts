/**
 * `fileRunSpec(input)`: the `RunSpec` of one source with a pipeline definition's defaults
 * (definition.ts: DEFAULT_MAPPING, DEFAULT_WINDOW, DEFAULT_POLICIES) under whatever the caller states.
 * Demo mode, the benchmarks and the end-to-end tests import the sample this way; without it each wrote
 * the same mapping block again, and a changed default would have had to be found in every copy.
 *
 * Only what a pipeline file defaults is defaulted here: the name, the source, the state file and the
 * target's label have no sensible default. A field given as `undefined` in an override is left at its
 * default (spread alone would blank it).
 */
import { DEFAULT_MAPPING, DEFAULT_POLICIES, DEFAULT_WINDOW } from './defaults.ts';
import type { RunSpec } from './run.ts';

export interface FileRunInput {
  name: string;
  source: RunSpec['source'];
  stateFile: string;
  targetLabel: string;
  mapping?: Partial<RunSpec['mapping']>;
  window?: Partial<RunSpec['window']>;
  policies?: Partial<RunSpec['policies']>;
}

/** The run `npm run sync` would make of a pipeline file naming only this source. */
export function fileRunSpec(input: FileRunInput): RunSpec {
  return {
    name: input.name,
    source: input.source,
    mapping: { ...DEFAULT_MAPPING, ...defined(input.mapping) },
    window: {
      pastDays: DEFAULT_WINDOW.past_days,
      futureDays: DEFAULT_WINDOW.future_days,
      ...defined(input.window),
    },
    policies: {
      update: DEFAULT_POLICIES.update,
      delete: DEFAULT_POLICIES.delete,
      maxDeleteRatio: DEFAULT_POLICIES.max_delete_ratio,
      ...defined(input.policies),
    },
    stateFile: input.stateFile,
    targetLabel: input.targetLabel,
  };
}

/** The object without its `undefined` fields. */
function defined<T extends object>(value: T | undefined): Partial<T> {
  if (!value) return {};
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
