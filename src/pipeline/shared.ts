/**
 * Events another pipeline of the target wrote first. `npm run import` names its pipeline after the file,
 * and a file that shares some of its events with an earlier import but is no copy of it (a club's calendar
 * that lists some of the city's events, one event saved from a calendar: cli/earlier-import.ts) is imported
 * on its own. Its shared events would then be created a second time under its own slugs; instead they are
 * left to the import that holds them, which keeps updating them. Only events the run's own pipeline does
 * not hold itself (what it wrote before stays its own), and not those the other one made drafts of.
 * Public: leaveToOthers, leftProblems.
 */
import type { SourceProblem } from '../sources/record.ts';
import type { RunState } from '../state/backend.ts';
import { type Desired, DRAFTED } from './desired.ts';

/** Events of `entities` left to `others`, counted by the pipeline that holds them. */
export type Left = Map<string, number>;

/**
 * `entities` without the events one of `others` holds and `own` (the run's pipeline's items, by
 * `kind\nkey`) does not; what was left out is added to `left`.
 */
export async function leaveToOthers(
  state: RunState,
  others: readonly string[],
  entities: Desired[],
  own: { has(id: string): boolean },
  left: Left,
): Promise<Desired[]> {
  if (others.length === 0) return entities;
  let candidates = entities.filter((d) => d.kind === 'event' && !own.has(`event\n${d.key}`));
  const held = new Set<string>();
  for (const other of others) {
    if (candidates.length === 0) break;
    const found = await state.itemsOf(other, candidates);
    // An event the other import made a draft (deletion policy `draft`) is no longer its to publish.
    for (const [id, item] of found) if (item.hash === DRAFTED) found.delete(id);
    if (found.size === 0) continue;
    left.set(other, (left.get(other) ?? 0) + found.size);
    for (const id of found.keys()) held.add(id);
    candidates = candidates.filter((d) => !found.has(`event\n${d.key}`));
  }
  return held.size === 0 ? entities : entities.filter((d) => !held.has(`${d.kind}\n${d.key}`));
}

/** One warning per pipeline events were left to, from the run's source (`file`). */
export function leftProblems(left: Left, file: string): SourceProblem[] {
  return [...left].map(([pipeline, n]) => ({
    code: 'left_to_earlier_import',
    severity: 'warning' as const,
    message: `${n} event${n === 1 ? ' was' : 's were'} imported before as "${pipeline}": left to that import, not created a second time`,
    origin: { file },
  }));
}
