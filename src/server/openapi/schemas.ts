/**
 * zod → JSON Schema for the OpenAPI document (B.4) and the namespace index (B.3), with zod 4's
 * `z.toJSONSchema`: responses in `output` mode (what we send), parameters and bodies in `input`
 * mode (what a client may send, before the WordPress coercions of B.0).
 *
 * Public: `toJson` (one schema, self-contained), `SchemaSet` (the document's components and
 * `$ref`s into them), `listElement` (the item schema of a CSV-or-array parameter), `wpType`.
 *
 * A zod schema with `.meta({ id })` is a component: `#/components/schemas/{id}`. Components come
 * from one registry-mode conversion of zod's global registry, so the document shows the very
 * schemas the server validates and serialises with.
 */
import { z } from 'zod';

export type Json = Record<string, unknown>;
export type Io = 'input' | 'output';

const REF = '#/components/schemas/';
const SAFE = Number.MAX_SAFE_INTEGER;
/** Keys whose values are maps of names to schemas: their own keys are names, not keywords. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * Drops what OpenAPI 3.1 documents should not carry: `$schema`/`$id` on every schema (zod writes
 * them on each registry entry; they would make each component its own JSON Schema resource) and
 * the ±MAX_SAFE_INTEGER bounds zod puts on every `z.int()`, which tell a reader nothing.
 */
function clean(node: unknown, names = false): unknown {
  if (Array.isArray(node)) return node.map((n) => clean(n));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (!names) {
      if (k === '$schema' || k === '$id') continue;
      if ((k === 'minimum' && v === -SAFE) || (k === 'maximum' && v === SAFE)) continue;
    }
    out[k] = clean(v, !names && NAME_MAPS.has(k));
  }
  return out;
}

/** A self-contained JSON Schema (draft 2020-12, nested components under `$defs`). */
export function toJson(schema: z.ZodType, io: Io): Json {
  const json = clean(z.toJSONSchema(schema, { io, unrepresentable: 'any' })) as Json;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...hoistRoot(json) };
}

/**
 * zod answers a schema with an id as `{"$ref": "#/$defs/Event", "$defs": {…}}`; readers (and
 * WordPress clients reading `schema.properties`) want the object itself at the top.
 */
function hoistRoot(json: Json): Json {
  const { $ref, $defs, ...rest } = json as { $ref?: unknown; $defs?: Record<string, Json> };
  const id = typeof $ref === 'string' && $ref.startsWith('#/$defs/') ? $ref.slice(8) : undefined;
  if (!id || !$defs?.[id] || Object.keys(rest).length) return json;
  const { [id]: root, ...others } = $defs;
  // Keep the definition when something inside still refers to it (a cycle).
  const defs = JSON.stringify([root, others]).includes(`"#/$defs/${id}"`) ? $defs : others;
  return Object.keys(defs).length ? { ...root, $defs: defs } : { ...root };
}

/** `x-wp-type` of a schema, else its JSON type(s), else the types of its `anyOf` branches. */
export function wpType(json: Json): string | string[] | undefined {
  const own = json['x-wp-type'] ?? json.type;
  if (typeof own === 'string' || Array.isArray(own)) return own as string | string[];
  if (!Array.isArray(json.anyOf)) return undefined;
  const types = new Set<string>();
  for (const branch of json.anyOf as Json[]) {
    const t = wpType(branch);
    if (t === undefined) return undefined;
    for (const x of [t].flat()) types.add(x);
  }
  return types.size === 1 ? [...types][0] : [...types];
}

/**
 * The array a list parameter ends up as (`venue=1,2`, `venue[]=1`, `[1, 2]` → `z.array(…)`), found
 * as the last stage of its pipe; undefined for anything else.
 */
export function listElement(field: z.ZodType): z.ZodArray | undefined {
  let s: z.ZodType = field;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) {
    s = s.unwrap() as z.ZodType;
  }
  if (!(s instanceof z.ZodPipe)) return undefined;
  const out = s.out as z.ZodType;
  return out instanceof z.ZodArray ? out : listElement(out);
}

/**
 * The document's `components.schemas` and the conversions that point into them. Response schemas
 * with an id become `$ref`s; any other schema is inlined, and the components it nests are added.
 */
export class SchemaSet {
  readonly components: Record<string, Json> = {};
  readonly #registry: Record<string, Json>;

  constructor() {
    const { schemas } = z.toJSONSchema(z.globalRegistry, {
      io: 'output',
      unrepresentable: 'any',
      uri: (id) => `${REF}${id}`,
    });
    this.#registry = clean(schemas) as Record<string, Json>;
  }

  /** `{"$ref": "#/components/schemas/{id}"}`, adding the component and what it references. */
  ref(id: string): Json {
    this.#add(id);
    return { $ref: `${REF}${id}` };
  }

  /** JSON Schema for `schema`, for use inside the document (fresh object, safe to edit). */
  of(schema: z.ZodType, io: Io): Json {
    const id = schema.meta()?.id;
    if (io === 'output' && typeof id === 'string' && this.#registry[id]) return this.ref(id);
    const { $defs, ...json } = clean(z.toJSONSchema(schema, { io, unrepresentable: 'any' })) as Json;
    if (!$defs) return json;
    // Nested components come back as `#/$defs/{id}`, which means nothing inside an OpenAPI
    // document: point them at the components. Input shapes differ from the registry's output
    // shapes, so they (and anything zod had to extract without an id) get names of their own.
    const names: Record<string, string> = {};
    const extra: [string, Json][] = [];
    for (const [key, def] of Object.entries($defs as Record<string, Json>)) {
      if (io === 'output' && this.#registry[key]) {
        names[key] = key;
        this.#add(key);
      } else {
        names[key] = this.#freeName(`${key.replace(/^_+/, '')}${io === 'input' ? 'Input' : ''}`, def);
        extra.push([names[key], def]);
      }
    }
    for (const [name, def] of extra) this.components[name] = rewriteRefs(def, names) as Json;
    return rewriteRefs(json, names) as Json;
  }

  /** `base`, or `base2`, `base3`… if a different schema already has that name. */
  #freeName(base: string, def: Json): string {
    const same = (name: string) => JSON.stringify(this.components[name]) === JSON.stringify(def);
    let name = base;
    for (let n = 2; (this.components[name] || this.#registry[name]) && !same(name); n++) name = `${base}${n}`;
    return name;
  }

  #add(id: string): void {
    if (this.components[id]) return;
    const schema = this.#registry[id];
    if (!schema) throw new Error(`No zod schema has the id "${id}".`);
    this.components[id] = schema;
    for (const ref of refsIn(schema)) this.#add(ref);
  }
}

function rewriteRefs(node: unknown, names: Record<string, string>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, names));
  if (!node || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    const local = k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? v.slice(8) : undefined;
    out[k] = local !== undefined && names[local] ? `${REF}${names[local]}` : rewriteRefs(v, names);
  }
  return out;
}

function refsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) refsIn(n, found);
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(REF)) found.add(v.slice(REF.length));
      else refsIn(v, found);
    }
  }
  return found;
}
