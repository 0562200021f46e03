/**
 * `POST {base}/oauth/token` (contract B.2, RFC 6749 §4.4): the client-credentials grant. It lives
 * outside the namespace and answers in OAuth's shapes, not WordPress's: a token document or a §5.2
 * error `{error, error_description}`, both `Cache-Control: no-store` (§5.1). The route's
 * `clientAuth` flag tells app.ts not to read its Basic header as a user's.
 *
 * Public: `oauthRoutes` (register with the API prefix).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyClient } from '../auth/oauth-clients.ts';
import { SCOPES, type Scope, TOKEN_LIFETIME, type TokenService } from '../auth/tokens.ts';
import { bodyParams } from '../body.ts';
import { ApiError } from '../errors.ts';

type OAuthErrorCode = 'invalid_request' | 'unsupported_grant_type' | 'invalid_scope' | 'invalid_client';

class OAuthError extends Error {
  readonly error: OAuthErrorCode;
  constructor(error: OAuthErrorCode, description: string) {
    super(description);
    this.error = error;
  }
}

function send(reply: FastifyReply, status: number, body: unknown): unknown {
  // RFC 6749 §5.1: token answers, errors included, must not be stored by caches.
  reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache');
  return reply.type('application/json; charset=UTF-8').send(body);
}

/** RFC 6749 §3.3: space-separated; absent or empty means every scope (B.2 default). */
function parseScope(raw: string | undefined): Scope[] {
  const asked = (raw ?? '').split(' ').filter(Boolean);
  if (asked.length === 0) return [...SCOPES];
  const unknown = asked.filter((s) => !SCOPES.includes(s as Scope));
  if (unknown.length)
    throw new OAuthError('invalid_scope', `Unknown scope "${unknown[0]}"; expected read, write.`);
  return SCOPES.filter((s) => asked.includes(s));
}

/** §2.3.1: Basic credentials are form-encoded before base64; decode them the same way. */
function formDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw new OAuthError(
      'invalid_request',
      'The client credentials in the Authorization header are malformed.',
    );
  }
}

function clientCredentials(req: FastifyRequest, params: Record<string, string | undefined>) {
  const header = req.headers.authorization;
  const inBody = params.client_id !== undefined || params.client_secret !== undefined;
  if (header) {
    const [scheme, value = ''] = header.split(/\s+/, 2);
    if (scheme.toLowerCase() !== 'basic') {
      throw new OAuthError('invalid_client', 'Client authentication must use HTTP Basic or body fields.');
    }
    // §2.3: a client must not use more than one authentication method in a request.
    if (inBody)
      throw new OAuthError('invalid_request', 'Send client credentials by Basic or in the body, not both.');
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new OAuthError('invalid_client', 'Client authentication failed.');
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  }
  if (!params.client_id) throw new OAuthError('invalid_client', 'Client authentication failed.');
  return { id: params.client_id, secret: params.client_secret ?? '' };
}

/** The request's fields as single strings: §3.2 forbids repeating a parameter. */
function fields(body: unknown): Record<string, string | undefined> {
  let params: Record<string, unknown>;
  try {
    params = bodyParams(body);
  } catch {
    throw new OAuthError('invalid_request', 'The request body is not valid JSON.');
  }
  const out: Record<string, string | undefined> = {};
  for (const name of ['grant_type', 'scope', 'client_id', 'client_secret']) {
    const v = params[name];
    if (v === undefined) continue;
    if (typeof v !== 'string')
      throw new OAuthError('invalid_request', `Parameter "${name}" must be one string.`);
    out[name] = v;
  }
  return out;
}

export async function oauthRoutes(app: FastifyInstance, opts: { tokens: TokenService }): Promise<void> {
  // Broken bodies and the like answer in OAuth's shape on this route too.
  app.setErrorHandler(async (err, _req, reply) => {
    // The throttle's 429 and the credential gate's 503 keep their own shape and headers.
    if (err instanceof ApiError && (err.status === 429 || err.status === 503)) {
      reply.headers(err.headers);
      return send(reply, err.status, err.toJSON());
    }
    if (err instanceof OAuthError) {
      const status = err.error === 'invalid_client' ? 401 : 400;
      if (status === 401) reply.header('www-authenticate', 'Basic realm="calsync"');
      return send(reply, status, { error: err.error, error_description: err.message });
    }
    return send(reply, 400, {
      error: 'invalid_request',
      error_description: 'The request could not be read.',
    });
  });

  app.post('/oauth/token', { config: { clientAuth: true } }, async (req, reply) => {
    const params = fields(req.body);
    if (!params.grant_type) throw new OAuthError('invalid_request', 'Missing parameter "grant_type".');
    if (params.grant_type !== 'client_credentials') {
      throw new OAuthError('unsupported_grant_type', 'Only grant_type=client_credentials is supported.');
    }
    const creds = clientCredentials(req, params);
    const client = await verifyClient(app.store, creds.id, creds.secret, app.credentials.forRequest(req));
    if (!client || !(await app.store.getUser(client.user_id))) {
      throw new OAuthError('invalid_client', 'Client authentication failed.');
    }
    const scopes = parseScope(params.scope);
    const token = await opts.tokens.issue(client, scopes);
    return send(reply, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME,
      scope: scopes.join(' '),
    });
  });
}
