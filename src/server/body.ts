/**
 * Request bodies (contract B.0): JSON, form-urlencoded or multipart, with bracketed fields
 * nested (`venue[venue]=Pier 7`, `organizer[]=12`) the same way for forms, multipart and
 * query strings.
 */
import { createRequire } from 'node:module';
import type { FastifyInstance } from 'fastify';
import type * as Qs from 'qs';
import { ApiError } from './errors.ts';

const QS_OPTIONS = { arrayLimit: 1000, depth: 5, parameterLimit: 5000 } as const;

/** qs and the ~40 modules it needs, loaded by the first query string or form that is not flat (an import's never is). */
let qs: typeof Qs | undefined;

/**
 * qs turns `status[]=a&venue[venue]=Pier 7` into arrays and objects. Most query strings are flat
 * (`page=2&per_page=50`), and qs took ~5 % of a kept list page's CPU reading them: those are split here,
 * to the same object qs makes (test/server/body.test.ts compares them).
 */
export function parseNested(s: string): Record<string, unknown> {
  const simple = FLAT.test(s) && flat(s);
  if (simple) return simple;
  qs ??= createRequire(import.meta.url)('qs') as typeof Qs;
  return qs.parse(s, QS_OPTIONS);
}

/** No brackets (`[`, `]`): nothing nests. `%` and `+` are decoded in values; a key with them goes to qs. */
const FLAT = /^[\w.,~=&%+-]*$/;

/** qs's decoder: `+` is a space, then percent-decoding, or the text as it is where that fails. */
function decodeValue(value: string): string {
  const spaced = value.includes('+') ? value.replaceAll('+', ' ') : value;
  if (!spaced.includes('%')) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** `undefined` for what qs treats specially even when flat: a key given twice, too many parameters. */
function flat(s: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (s === '') return out;
  const parts = s.split('&');
  if (parts.length > QS_OPTIONS.parameterLimit) return undefined;
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    // A decoded key may hold brackets (`%5B`): qs reads those.
    if (key.includes('%') || key.includes('+')) return undefined;
    // qs drops empty keys and keys that would shadow Object.prototype's (toString, __proto__).
    if (key === '' || key in Object.prototype) continue;
    if (Object.hasOwn(out, key)) return undefined;
    out[key] = eq < 0 ? '' : decodeValue(part.slice(eq + 1));
  }
  return out;
}

export const tooLarge = () => new ApiError(413, 'rest_request_too_large', 'Request body is too large.');

/**
 * B.0 checks permissions (step 3) and the target (4, 5) before the body (6): an anonymous
 * `POST /events` with broken JSON is a 401, not a 400. So broken JSON parses to this
 * marker, and `bodyParams` throws `rest_invalid_json` when a handler reads the parameters,
 * which handlers do after their permission and target checks.
 */
const INVALID_JSON = Object.freeze({});

/** The body's fields; throws for a JSON body that did not parse. */
export function bodyParams(body: unknown): Record<string, unknown> {
  if (body === INVALID_JSON) throw new ApiError(400, 'rest_invalid_json', 'Invalid JSON body passed.');
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** A JSON body's value: `{}` when empty, the marker above when it does not parse. */
export function parseJsonBody(body: string): unknown {
  const text = body.trim();
  if (text === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return INVALID_JSON;
  }
}

export async function registerBodyParsers(app: FastifyInstance, limit: number): Promise<void> {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
    done(null, parseJsonBody(body as string)),
  );
  // Loaded here, with the app: the in-process caller (in-process.ts) parses JSON bodies alone.
  const [{ default: formbody }, { default: multipart }] = await Promise.all([
    import('@fastify/formbody'),
    import('@fastify/multipart'),
  ]);
  await app.register(formbody, { parser: parseNested });
  await app.register(multipart, { attachFieldsToBody: true, limits: { fileSize: limit, fieldSize: limit } });
  // Registered after the plugin, so this runs after its own preValidation has read the parts.
  // A callback hook (Fastify's runner turns a throw into the request's error, as a rejection): it runs on
  // every request, and only multipart ones have anything to do.
  app.addHook('preValidation', (req, _reply, done) => {
    if (req.isMultipart() && req.body && typeof req.body === 'object') {
      req.body = multipartBody(req.body as Record<string, MultipartPart>, limit);
    }
    done();
  });
}

/** A part as @fastify/multipart attaches it with `attachFieldsToBody: true`. */
interface MultipartPart {
  type: 'field' | 'file';
  value?: unknown;
  valueTruncated?: boolean;
  _buf?: Buffer;
}

/**
 * Multipart parts → the nested object a form body with the same fields gives; files stay
 * buffers under their name. The plugin pipes the raw request past Fastify's `bodyLimit`
 * and silently truncates a field longer than `fieldSize`, so the limit is enforced here:
 * a truncated field or a larger total is a 413.
 */
function multipartBody(body: Record<string, MultipartPart | MultipartPart[]>, limit: number) {
  const pairs = new URLSearchParams();
  const files: Record<string, Buffer | Buffer[]> = {};
  let size = 0;
  for (const [key, entry] of Object.entries(body)) {
    const parts = Array.isArray(entry) ? entry : [entry];
    for (const part of parts) {
      if (part.valueTruncated) throw tooLarge();
      if (part.type === 'file') {
        const buf = part._buf ?? Buffer.alloc(0);
        size += buf.length;
        files[key] = Array.isArray(entry) ? [...((files[key] as Buffer[]) ?? []), buf] : buf;
      } else {
        const value = String(part.value ?? '');
        size += Buffer.byteLength(value);
        pairs.append(key, value);
      }
      if (size > limit) throw tooLarge();
    }
  }
  return { ...parseNested(pairs.toString()), ...files };
}
