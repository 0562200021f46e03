/**
 * Validation of request parameters against the model's zod schemas, with WordPress's error
 * semantics (contract B.0 step 6, A.8): missing required parameters first
 * (`rest_missing_callback_param`), then every invalid one at once (`rest_invalid_param`).
 * Unknown and read-only parameters are ignored. Texts longer than their limit (services/field-limits.ts)
 * are invalid before their schema is asked.
 */
import type { z } from 'zod';
import { invalidParams, missingParams, type ParamProblem } from './errors.ts';
import { lengthProblems } from './services/field-limits.ts';

interface ParseOptions {
  required?: readonly string[];
  /** Fields where `null` is a value (it clears); `null` elsewhere is invalid. */
  nullable?: ReadonlySet<string>;
}

export function parseParams<S extends z.ZodObject>(
  schema: S,
  input: Record<string, unknown>,
  { required = [], nullable }: ParseOptions = {},
): Partial<z.output<S>> {
  const missing = required.filter((k) => input[k] === undefined);
  if (missing.length) throw missingParams(missing);

  const out: Record<string, unknown> = {};
  const problems: ParamProblem[] = [];
  for (const [key, field] of fieldsOf(schema)) {
    const value = input[key];
    if (value === undefined) continue;
    if (value === null && nullable && !nullable.has(key)) {
      problems.push(typeProblem(key, field));
      continue;
    }
    const tooLong = lengthProblems(key, value);
    if (tooLong.length > 0) {
      problems.push(...tooLong);
      continue;
    }
    const r = field.safeParse(value);
    if (r.success) out[key] = r.data;
    else problems.push(describe(key, field, r.error));
  }
  if (problems.length) throw invalidParams(problems);
  return out as Partial<z.output<S>>;
}

/** A schema's fields, listed once: every write request is checked against the same few schemas. */
const fieldLists = new WeakMap<z.ZodObject, readonly [string, z.ZodType][]>();
function fieldsOf(schema: z.ZodObject): readonly [string, z.ZodType][] {
  let fields = fieldLists.get(schema);
  if (!fields) {
    fields = Object.entries(schema.shape) as [string, z.ZodType][];
    fieldLists.set(schema, fields);
  }
  return fields;
}

function typeProblem(key: string, field: z.ZodType): ParamProblem {
  const type = (field.meta()?.['x-wp-type'] as string | undefined) ?? 'string';
  return { param: key, message: `${key} is not of type ${type}.`, code: 'rest_invalid_type' };
}

function describe(key: string, field: z.ZodType, error: z.ZodError): ParamProblem {
  const issue = error.issues[0];
  const wpType = field.meta()?.['x-wp-type'];
  // WordPress reports any unusable boolean or number ("yes", "abc") as a type error (T071).
  const scalar = wpType === 'boolean' || wpType === 'integer' || wpType === 'number';
  const isType =
    issue.path.length === 0 &&
    (issue.code === 'invalid_type' ||
      (issue.code === 'invalid_union' &&
        (scalar || issue.errors.every((branch) => branch.every((i) => i.code === 'invalid_type')))));
  if (isType) return typeProblem(key, field);
  if (issue.code === 'invalid_value' && 'values' in issue) {
    return {
      param: key,
      message: `${key} is not one of ${issue.values.join(', ')}.`,
      code: 'rest_not_in_enum',
    };
  }
  if (issue.code === 'custom' && issue.message) return { param: key, message: `${key}: ${issue.message}` };
  return { param: key, message: 'Invalid parameter.' };
}
