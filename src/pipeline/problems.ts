/**
 * What is wrong with a pipeline definition, in words a user acts on: `DefinitionProblem` (stable code,
 * file:line:column, path in the file), `DefinitionError` carrying all of them, and the messages for zod's
 * issues in the "expected …, got …" form (STYLE.md "Errors", after p-queue). Secrets are never echoed.
 */
import type { z } from 'zod';
import { CSV_ONLY_KEYS, SECRET_KEYS } from './definition.ts';

/**
 * One thing wrong with a definition. `code`: `unreadable`, `yaml_syntax`, `unknown_key`, `invalid`,
 * `missing_env`, `literal_secret` (and `duplicate_name` from `npm run validate`). `path` is dotted with [n] for list items (`feeds[0].name`), '' for
 * the whole file.
 */
export interface DefinitionProblem {
  code: string;
  file: string;
  line?: number;
  column?: number;
  path: string;
  message: string;
}

export class DefinitionError extends Error {
  readonly problems: DefinitionProblem[];
  constructor(problems: DefinitionProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'DefinitionError';
    this.problems = problems;
  }
}

/** `pipelines/x.yaml:12:5: source.path: expected string, got number`. */
export function formatProblem(p: DefinitionProblem): string {
  const where = p.line === undefined ? p.file : `${p.file}:${p.line}:${p.column ?? 1}`;
  return `${where}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    return out ? `${out}.${String(segment)}` : String(segment);
  }, '');
}

export function sortProblems(problems: DefinitionProblem[]): DefinitionProblem[] {
  const key = (p: DefinitionProblem) => (p.line ?? Number.MAX_SAFE_INTEGER) * 1e6 + (p.column ?? 0);
  return problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => key(a.p) - key(b.p) || a.i - b.i)
    .map(({ p }) => p);
}

// ---- Messages ------------------------------------------------------------------------------------

const SECRET_HINT = new Set<PropertyKey>(SECRET_KEYS);

/** What a value was, for "got …": its type for type errors, else the value itself (shortened). */
function got(input: unknown, asType = false): string {
  if (input === undefined) return 'nothing';
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'a mapping';
  if (asType) return typeof input;
  if (typeof input === 'string')
    return JSON.stringify(input.length > 60 ? `${input.slice(0, 57)}...` : input);
  return String(input);
}

const TYPE_NAMES: Record<string, string> = { object: 'a mapping', array: 'a list', int: 'an integer' };

// zod's own wording ("Invalid input: expected string, received number") rewritten as expected/got;
// messages given in definition.ts take precedence over this map (zod's error precedence).
export function defaultMessage(issue: z.core.$ZodRawIssue): string {
  const secret = issue.path?.length && SECRET_HINT.has(issue.path[issue.path.length - 1]);
  const input = secret ? '(hidden)' : issue.input;
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return issue.input === undefined
        ? `expected ${expected}, got nothing (required)`
        : `expected ${expected}, got ${typeof issue.input === 'number' && issue.expected === 'int' ? issue.input : got(issue.input, true)}`;
    }
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' | ')}, got ${got(input)}`;
    case 'invalid_union': {
      const discriminator = 'discriminator' in issue ? String(issue.discriminator) : undefined;
      const options = 'options' in issue && Array.isArray(issue.options) ? issue.options : [];
      if (discriminator !== undefined && options.length > 0) {
        const value = (issue.input as Record<string, unknown> | undefined)?.[discriminator];
        return `expected ${options.map((v) => JSON.stringify(v)).join(' | ')}, got ${got(value)}`;
      }
      return `expected one of the allowed shapes, got ${got(input)}`;
    }
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const op = issue.code === 'too_small' ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      const what = issue.origin === 'string' ? 'characters' : issue.origin === 'array' ? 'items' : '';
      const measured = what
        ? `${(input as { length?: number } | undefined)?.length ?? got(input)} ${what}`
        : got(input);
      return `expected ${what ? `${what} ${op} ${bound}` : `a number ${op} ${bound}`}, got ${measured}`;
    }
    case 'invalid_key': // a record's key (source.columns) failed its own schema, whose message says what
      return `${issue.issues[0]?.message ?? 'expected another key'}, got ${got(input)}`;
    default:
      return `expected something else, got ${got(input)}`;
  }
}

// Messages written in definition.ts say what was expected; add what was got, except for secrets.
export function withGot(issue: z.core.$ZodIssue): string {
  if (issue.message.includes(', got ') || !('input' in issue)) return issue.message;
  const last = issue.path[issue.path.length - 1];
  return `${issue.message}, got ${SECRET_HINT.has(last) ? '(hidden)' : got(issue.input)}`;
}

export function unknownKey(issue: z.core.$ZodIssueUnrecognizedKeys, key: string): string {
  const source = issue.input as { type?: unknown } | undefined;
  if (
    issue.path.join('.') === 'source' &&
    source?.type === 'ics' &&
    (CSV_ONLY_KEYS as readonly string[]).includes(key)
  )
    return `unknown key "${key}": it is a csv option, and this source is ics`;
  return `unknown key "${key}"`;
}
