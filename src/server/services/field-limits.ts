/**
 * Length limits on every text a request may send (issue 15: a 900 KB title was accepted, and made list
 * pages of 910 KB). Checked on the request's parameters before anything is resolved or written, nested
 * ones too (an event's inline `venue: { address }` is `venue.address`); a text over its limit is a 400
 * `rest_invalid_param` naming the field and the limit. Counted in characters (code points).
 *
 * Public: `FIELD_LIMITS`, `DEFAULT_LIMIT`, `lengthProblems(key, value)` (params.ts checks every parameter
 * a schema knows with it, reads and writes).
 */
import type { ParamProblem } from '../errors.ts';

/** Characters allowed per field name; fields not named here get `DEFAULT_LIMIT`. */
export const FIELD_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  title: 1_000,
  venue: 1_000,
  organizer: 1_000,
  name: 1_000,
  slug: 200,
  description: 100_000,
  excerpt: 10_000,
  cost: 255,
  address: 255,
  city: 255,
  country: 255,
  province: 255,
  state: 255,
  stateprovince: 255,
  zip: 50,
  phone: 100,
  email: 254,
  website: 2_000,
  image: 2_000,
  search: 1_000,
  password: 255,
});
export const DEFAULT_LIMIT = 2_000;

const length = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

function collect(value: unknown, path: string, field: string, out: ParamProblem[]): void {
  if (typeof value === 'string') {
    const limit = FIELD_LIMITS[field] ?? DEFAULT_LIMIT;
    // Most values are far below any limit: count code points only when UTF-16 units could exceed it.
    if (value.length > limit && length(value) > limit) {
      out.push({
        param: path,
        message: `${path} is longer than ${limit} characters.`,
        code: 'rest_too_long',
      });
    }
  } else if (Array.isArray(value)) {
    for (const item of value) collect(item, path, field, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collect(v, `${path}.${k}`, k, out);
  }
}

/** The problems of one parameter's texts (its nested ones too) over their limits. */
export function lengthProblems(key: string, value: unknown): ParamProblem[] {
  const problems: ParamProblem[] = [];
  collect(value, key, key, problems);
  return problems;
}
