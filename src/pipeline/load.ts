/**
 * Reading a pipeline definition: `loadPipeline(file, env)` and, for tests, `parsePipeline(text, file, env)`.
 * They return a frozen `Pipeline` or throw one `DefinitionError` listing EVERY problem at once, each with
 * `file:line:column`, its path inside the file and what was expected and got (STYLE.md "Errors"), so a
 * user fixes the file in one go.
 *
 * Steps: YAML (JSON is YAML too) into a Document kept for its node ranges → secrets must be `${VAR}`
 * references → `${VAR}` substituted from `env` in every string → PipelineSchema → paths resolved
 * against the definition's folder. A zod issue's path is mapped back to a line through the Document;
 * the wording of problems is problems.ts'. `checkPipeline*` return the problems instead of throwing
 * (`npm run validate`).
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { type Document, isAlias, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { type Pipeline, PipelineSchema, SECRET_KEYS } from './definition.ts';
import { substituteEnv } from './env.ts';
import {
  DefinitionError,
  type DefinitionProblem,
  defaultMessage,
  formatPath,
  sortProblems,
  unknownKey,
  withGot,
} from './problems.ts';

export { DefinitionError, type DefinitionProblem, formatProblem } from './problems.ts';

export interface CheckOptions {
  /** Leave unset `${VAR}` references in place and do not report them (`validate --allow-missing-env`). */
  allowMissingEnv?: boolean;
}

/**
 * What checking a definition found: every problem, and the pipeline when there are none. Under
 * `allowMissingEnv` a file can have no problems and still no pipeline (an unset `${VAR}` where a URL must
 * be): `name` is then read from the file as written.
 */
export interface CheckResult {
  problems: DefinitionProblem[];
  pipeline?: Pipeline;
  name?: string;
}

type Env = Record<string, string | undefined>;

/** Reads and validates `file` (shown in messages as given); throws DefinitionError. */
export async function loadPipeline(file: string, env: Env): Promise<Pipeline> {
  return orThrow(await checkPipelineFile(file, env));
}

/** Validates the text of a definition; `file` names it in messages and anchors relative paths. */
export function parsePipeline(text: string, file: string, env: Env): Pipeline {
  return orThrow(checkPipeline(text, file, env));
}

function orThrow({ pipeline, problems }: CheckResult): Pipeline {
  if (pipeline === undefined || problems.length > 0) throw new DefinitionError(problems);
  return pipeline;
}

/** Like loadPipeline, but returns the problems instead of throwing them. */
export async function checkPipelineFile(
  file: string,
  env: Env,
  options: CheckOptions = {},
): Promise<CheckResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    return { problems: [{ code: 'unreadable', file, path: '', message: `cannot read: ${reason}` }] };
  }
  return checkPipeline(text, file, env, options);
}

/** Like parsePipeline, but returns the problems instead of throwing them. */
export function checkPipeline(text: string, file: string, env: Env, options: CheckOptions = {}): CheckResult {
  const lines = new LineCounter();
  const doc = parseDocument(text.replace(/^\uFEFF/, ''), { lineCounter: lines, prettyErrors: false });
  const at = (path: PropertyKey[], key = false) => ({ file, ...locate(doc, lines, path, key) });
  if (doc.errors.length > 0) {
    return {
      problems: doc.errors.map((err) => ({
        code: 'yaml_syntax',
        file,
        ...position(lines, err.pos[0]),
        path: '',
        message: `YAML: ${err.message.split('\n')[0]}`,
      })),
    };
  }
  if (doc.contents === null) {
    const message = 'expected a mapping with at least name and source, got an empty file';
    return { problems: [{ code: 'invalid', file, line: 1, column: 1, path: '', message }] };
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return {
      problems: [{ code: 'yaml_syntax', file, path: '', message: `YAML: ${(err as Error).message}` }],
    };
  }
  const rawName = (raw as { name?: unknown } | null)?.name;
  const name = typeof rawName === 'string' ? rawName : undefined;

  const problems: DefinitionProblem[] = [];
  const secretPaths = literalSecrets(raw);
  for (const path of secretPaths) {
    problems.push({
      code: 'literal_secret',
      ...at(path),
      path: formatPath(path),
      message: `secrets must be \${ENV} references, got a value written in the file`,
    });
  }
  const substituted = substituteEnv(raw, env);
  if (!options.allowMissingEnv) {
    for (const { path, name: variable } of substituted.missing) {
      problems.push({
        code: 'missing_env',
        ...at(path),
        path: formatPath(path),
        message: `expected environment variable ${variable} to be set, got nothing`,
      });
    }
  }

  const result = PipelineSchema.safeParse(substituted.value, { reportInput: true, error: defaultMessage });
  // Reported above already: a literal secret, and an unset variable (or one the caller allows).
  const skip = new Set([...secretPaths, ...substituted.missing.map((m) => m.path)].map(formatPath));
  for (const issue of result.success ? [] : result.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        problems.push({
          code: 'unknown_key',
          ...at(path, true),
          path: formatPath(path),
          message: unknownKey(issue, key),
        });
      }
      continue;
    }
    const path = formatPath(issue.path);
    if (skip.has(path)) continue;
    const onKey = issue.code === 'invalid_key';
    problems.push({ code: 'invalid', ...at(issue.path, onKey), path, message: withGot(issue) });
  }
  if (problems.length > 0 || !result.success) return { problems: sortProblems(problems), name };

  const absolute = resolve(file);
  const folder = dirname(absolute);
  const def = result.data;
  const pipeline = deepFreeze({
    ...def,
    file: absolute,
    source: {
      ...def.source,
      path: def.source.path === undefined ? undefined : resolve(folder, def.source.path),
    },
    feeds: def.feeds.map((feed) => ({
      ...feed,
      path: feed.path === undefined ? undefined : resolve(folder, feed.path),
    })),
  });
  return { problems, pipeline, name: def.name };
}
// ---- Secrets ---------------------------------------------------------------------------------------

const ENV_REFERENCE = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

// Only target.auth holds secrets today; a literal is refused even when it would also fail the schema
// (a number), so the advice is the one that fixes it.
function literalSecrets(raw: unknown): PropertyKey[][] {
  const auth = (raw as { target?: { auth?: unknown } } | null)?.target?.auth;
  if (auth === null || typeof auth !== 'object' || Array.isArray(auth)) return [];
  return SECRET_KEYS.filter((key) => {
    const value = (auth as Record<string, unknown>)[key];
    return value !== undefined && !(typeof value === 'string' && ENV_REFERENCE.test(value));
  }).map((key) => ['target', 'auth', key]);
}

// ---- Positions ---------------------------------------------------------------------------------------

function position(lines: LineCounter, offset: number): { line: number; column: number } {
  const { line, col } = lines.linePos(offset);
  return { line, column: col };
}

/** The node at `path` (its key when `key`), or its deepest existing ancestor: a missing key points at its parent. */
function locate(doc: Document, lines: LineCounter, path: PropertyKey[], key: boolean) {
  let node: Node | null | undefined = doc.contents;
  let found: Node | null | undefined = node;
  for (let i = 0; i < path.length; i++) {
    if (isAlias(node)) node = node.resolve(doc);
    const segment = path[i];
    if (isMap(node)) {
      const pair = node.items.find(
        (item) => String(isScalar(item.key) ? item.key.value : item.key) === String(segment),
      );
      if (!pair) break;
      const last = i === path.length - 1;
      node = pair.value as Node | null;
      found = (last && key) || !isNode(node) ? (pair.key as Node) : node;
    } else if (isSeq(node)) {
      node = node.items[Number(segment)] as Node | undefined;
      if (!isNode(node)) break;
      found = node;
    } else break;
  }
  const offset = found?.range?.[0];
  return offset === undefined ? { line: 1, column: 1 } : position(lines, offset);
}

const isNode = (value: unknown): value is Node =>
  value !== null && typeof value === 'object' && 'range' in value && Array.isArray((value as Node).range);

// ---- Helpers ---------------------------------------------------------------------------------------

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
