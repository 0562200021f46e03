/**
 * The run report: per kind, how many items were created, updated, unchanged, deleted, skipped and failed,
 * every failure with its reason and where it came from (file:line, UID, HTTP status and error code), and
 * the source's problems. Printed as a table on a terminal and written as JSON with `--report`.
 */

import type { Kind } from '../model/kind.ts';
import type { SourceProblem } from '../sources/record.ts';
import type { ItemResult, Outcome } from './apply.ts';
import { KIND_ORDER } from './desired.ts';
import type { Conflict } from './plan.ts';

export const OUTCOMES: readonly Outcome[] = [
  'created',
  'updated',
  'unchanged',
  'deleted',
  'skipped',
  'failed',
];

/** Which item a report line is about, and where in the source it came from. */
export interface ReportedItem {
  kind: Kind;
  key: string;
  label: string;
  file?: string;
  line?: number;
  uid?: string;
}

export interface Failure extends ReportedItem {
  status?: number;
  code: string;
  message: string;
}

/** An item whose source changes were (partly) not written because the fields were edited on the target. */
export interface ConflictReport extends ReportedItem {
  fields: Conflict[];
}

export interface RunReport {
  pipeline: string;
  runId: string;
  source: string;
  target: string;
  dryRun: boolean;
  startedAt: string;
  durationMs: number;
  counts: Record<Kind, Record<Outcome, number>>;
  failures: Failure[];
  problems: SourceProblem[];
  /** Items written with a compromise (e.g. without an image the target refused), one line each. */
  warnings: string[];
  /** The mass-delete guard's message when it held deletions back. */
  guard?: string;
  /** The source lost records (cut off, unreadable rows or VEVENTs): why, and that nothing was deleted. */
  incomplete?: string;
  /** preserve-local-edits: source changes not written because the target's field was edited since. */
  conflicts: ConflictReport[];
  /** A remote source answered 304 Not Modified: nothing was read, planned or written. */
  notModified?: boolean;
  requests: Record<string, number>;
  /** Peak resident memory of the process so far, MB (ops dashboards; the import benchmark). */
  peakRssMb: number;
  /** `ok`: everything written; `failed`: some items (or source records) failed, or deletions were held back. */
  outcome: 'ok' | 'failed';
}

export function emptyCounts(): Record<Kind, Record<Outcome, number>> {
  return Object.fromEntries(
    KIND_ORDER.map((k) => [k, Object.fromEntries(OUTCOMES.map((o) => [o, 0]))]),
  ) as Record<Kind, Record<Outcome, number>>;
}

export function tally(
  results: readonly ItemResult[],
): Pick<RunReport, 'counts' | 'failures' | 'warnings' | 'conflicts'> {
  const t = new Tally();
  results.forEach((result, index) => {
    t.add(result, index);
  });
  return t.done();
}

/**
 * `tally` as the results come, keeping only what the report lists (a run in batches keeps no results);
 * the lists in plan order (`index`: the action's place in the plan), whatever order the results settle in.
 */
export class Tally {
  readonly #counts = emptyCounts();
  readonly #failures: [number, Failure][] = [];
  readonly #warnings: [number, string][] = [];
  readonly #conflicts: [number, ConflictReport][] = [];

  add({ action, outcome, error, warning }: ItemResult, index: number): void {
    this.#counts[action.kind][outcome]++;
    const note = (text: string | undefined) =>
      this.#warnings.push([
        index,
        `${where(action.origin, action.key)}: ${action.kind} "${action.label}": ${text}`,
      ]);
    if (action.conflicts?.length) this.#conflicts.push([index, conflictOf(action)]);
    else if ((action.keep || action.warn) && outcome !== 'failed') note(action.reason);
    if (warning) note(warning);
    if (outcome === 'failed' && error) {
      const failure = { ...itemOf(action), status: error.status, code: error.code, message: error.message };
      this.#failures.push([index, failure]);
    }
  }

  /** A warning of the run's own, not of one item: listed after those of the items. */
  note(text: string): void {
    this.#warnings.push([Number.MAX_SAFE_INTEGER, text]);
  }

  done(): Pick<RunReport, 'counts' | 'failures' | 'warnings' | 'conflicts'> {
    const ordered = <T>(list: [number, T][]) => list.sort((a, b) => a[0] - b[0]).map(([, item]) => item);
    return {
      counts: this.#counts,
      failures: ordered(this.#failures),
      warnings: ordered(this.#warnings),
      conflicts: ordered(this.#conflicts),
    };
  }
}

export function conflictsOf(actions: readonly ItemResult['action'][]): ConflictReport[] {
  return actions.filter((a) => a.conflicts?.length).map(conflictOf);
}

function conflictOf(action: ItemResult['action']): ConflictReport {
  return { ...itemOf(action), fields: action.conflicts ?? [] };
}

function itemOf(action: ItemResult['action']): ReportedItem {
  return {
    kind: action.kind,
    key: action.key,
    label: action.label,
    file: action.origin?.file,
    line: action.origin?.line,
    uid: action.uid,
  };
}

/** `file:line (UID u): event "Title": title kept as edited on the target ("A"); the source says "B"` */
export function formatConflict(c: ConflictReport): string {
  const uid = c.uid ? ` (UID ${c.uid})` : '';
  const fields = c.fields
    .map((f) =>
      f.target === undefined
        ? `${f.field}: the source says ${JSON.stringify(f.source)}`
        : `${f.field} kept as edited on the target (${JSON.stringify(f.target)}); the source says ${JSON.stringify(f.source)}`,
    )
    .join('; ');
  return `${where(c, c.key)}${uid}: ${c.kind} "${c.label}": ${fields}`;
}

const PLURAL: Record<Kind, string> = {
  category: 'categories',
  tag: 'tags',
  venue: 'venues',
  organizer: 'organizers',
  event: 'events',
};

/** A fixed-width table of `counts` (kinds down, outcomes or ops across). */
export function formatTable(
  counts: Record<Kind, Record<string, number>>,
  columns: readonly string[],
): string {
  const rows = [
    ['', ...columns],
    ...KIND_ORDER.map((k) => [PLURAL[k], ...columns.map((c) => String(counts[k][c]))]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '))
    .join('\n');
}

const where = (origin: { file?: string; line?: number } | undefined, key: string) =>
  origin?.file ? `${origin.file}${origin.line ? `:${origin.line}` : ''}` : key;

/** `file:line (UID u): event "Title": POST /…/events: HTTP 400 rest_invalid_param: …` — where, then what. */
export function formatFailure(f: Failure): string {
  const uid = f.uid ? ` (UID ${f.uid})` : '';
  // Writer errors already name the request, status and code; others get their code appended.
  const code = f.message.includes(f.code) ? '' : ` [${f.code}]`;
  return `${where(f, f.key)}${uid}: ${f.kind} "${f.label}": ${f.message}${code}`;
}

export function formatProblem(p: SourceProblem): string {
  const at = where(p.origin, '');
  // Sources write their messages as `file:line: what`; the location is said once, first.
  const message = p.message.startsWith(`${at}: `) ? p.message.slice(at.length + 2) : p.message;
  const uid = p.uid ? ` (UID ${p.uid})` : '';
  const field = p.field && !message.startsWith(`${p.field}:`) ? ` ${p.field}:` : '';
  return `${at}${uid}: ${p.severity} ${p.code}:${field} ${message}`;
}
