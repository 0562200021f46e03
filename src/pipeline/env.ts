/**
 * `${VAR}` references in a pipeline definition, substituted from the environment in every string value
 * (keys are left alone): secrets and per-host settings stay out of the file (spec/pipeline.md). `$${` writes
 * a literal `${`, as in docker compose. Substitution is on strings only: `timeout_ms: ${T}` stays a
 * string and fails the schema, so a value's type never depends on the environment.
 */

const REFERENCE = /\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface MissingVariable {
  /** Where the reference is, as a path into the definition (numbers for list items). */
  path: PropertyKey[];
  name: string;
}

export interface Substituted {
  value: unknown;
  /** Every reference to an unset variable; those references are left in place. */
  missing: MissingVariable[];
}

/** A copy of `value` with references replaced from `env`. */
export function substituteEnv(value: unknown, env: Record<string, string | undefined>): Substituted {
  const missing: MissingVariable[] = [];
  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (typeof node === 'string') {
      return node.replace(REFERENCE, (whole, escaped: string, name: string) => {
        if (escaped) return whole.slice(1);
        const found = env[name];
        if (found === undefined) {
          missing.push({ path, name });
          return whole;
        }
        return found;
      });
    }
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...path, index]));
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...path, key])]));
    }
    return node;
  };
  return { value: walk(value, []), missing };
}
