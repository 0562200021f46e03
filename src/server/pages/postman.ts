/**
 * A Postman collection (format v2.1) of the OpenAPI document, for `GET /docs/postman.json`: one folder
 * per tag, one request per operation, path parameters as `:name` variables and query parameters listed
 * but disabled. Postman imports OpenAPI too; this collection adds the token flow: "Get an access token"
 * stores the token in `{{accessToken}}`, which every other request sends as its Bearer token.
 *
 * Public: `toPostman(openapi)`, pure. Written here rather than taken from openapi-to-postmanv2, which
 * brings ~40 dependencies for what is a walk over `paths`.
 */

// biome-ignore lint/suspicious/noExplicitAny: a walk over a JSON document
type Doc = Record<string, any>;

const SCHEMA = 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const TOKEN_SCRIPT = [
  "// Keeps the token for the other requests of this collection (they send it as 'Bearer {{accessToken}}').",
  'if (pm.response.code === 200) pm.collectionVariables.set("accessToken", pm.response.json().access_token);',
];

export function toPostman(doc: Doc): Doc {
  const base = String(doc.servers?.[0]?.url ?? '').replace(/\/+$/, '');
  const folders = new Map<string, Doc[]>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Doc>)) {
    const server = item.servers?.[0]?.url;
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      folders.set(tag, [
        ...(folders.get(tag) ?? []),
        request(doc, path, method, op, server ? 'siteUrl' : 'baseUrl'),
      ]);
    }
  }
  const tokenServer = doc.paths['/oauth/token']?.servers?.[0]?.url ?? base;
  return {
    info: { name: doc.info.title, description: doc.info.description, schema: SCHEMA },
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{accessToken}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: base },
      { key: 'siteUrl', value: String(tokenServer).replace(/\/+$/, '') },
      { key: 'clientId', value: '' },
      { key: 'clientSecret', value: '' },
      { key: 'accessToken', value: '' },
    ],
    item: [...folders].map(([name, item]) => ({ name, item })),
  };
}

function request(doc: Doc, path: string, method: string, op: Doc, host: string): Doc {
  const params: Doc[] = op.parameters ?? [];
  const segments = path.split('/').filter(Boolean);
  const pathVars = params.filter((p) => p.in === 'path');
  const query = params
    .filter((p) => p.in === 'query')
    .map((p) => ({ key: p.name, value: '', description: p.description ?? '', disabled: true }));
  const urlPath = segments.map((s) => s.replace(/^\{(\w+)\}$/, ':$1'));
  const raw = `{{${host}}}/${urlPath.join('/')}`;
  const req: Doc = {
    method: method.toUpperCase(),
    header: [{ key: 'Accept', value: 'application/json' }],
    url: {
      raw,
      host: [`{{${host}}}`],
      path: urlPath,
      ...(query.length ? { query } : {}),
      ...(pathVars.length
        ? { variable: pathVars.map((p) => ({ key: p.name, value: '', description: p.description ?? '' })) }
        : {}),
    },
    description: op.description ?? op.summary,
  };
  const body = bodyOf(doc, op);
  if (body) req.body = body;
  const entry: Doc = { name: op.summary ?? op.operationId, request: req };
  if (op.operationId === 'requestToken') {
    req.auth = {
      type: 'basic',
      basic: [
        { key: 'username', value: '{{clientId}}', type: 'string' },
        { key: 'password', value: '{{clientSecret}}', type: 'string' },
      ],
    };
    entry.event = [{ listen: 'test', script: { type: 'text/javascript', exec: TOKEN_SCRIPT } }];
  } else if (Array.isArray(op.security) && op.security.length === 0) {
    req.auth = { type: 'noauth' };
  }
  return entry;
}

/** The request body: form fields for the token endpoint, a JSON skeleton of the required fields otherwise. */
function bodyOf(doc: Doc, op: Doc): Doc | undefined {
  let body = op.requestBody;
  if (!body) return undefined;
  if (body.$ref) body = doc.components.requestBodies[String(body.$ref).split('/').pop() as string];
  const form = body.content?.['application/x-www-form-urlencoded'];
  if (!body.content?.['application/json'] && form) {
    const required: string[] = form.schema?.required ?? [];
    return {
      mode: 'urlencoded',
      urlencoded: required.map((k) => ({ key: k, value: form.schema.properties?.[k]?.const ?? '' })),
    };
  }
  const schema = body.content?.['application/json']?.schema ?? {};
  const skeleton = Object.fromEntries(((schema.required as string[]) ?? []).map((k) => [k, '']));
  return {
    mode: 'raw',
    raw: JSON.stringify(skeleton, null, 2),
    options: { raw: { language: 'json' } },
  };
}
