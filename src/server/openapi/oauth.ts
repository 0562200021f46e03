/**
 * The OAuth 2.0 token endpoint in the OpenAPI document (B.2, D7): `POST {base}/oauth/token`, the
 * client-credentials grant of RFC 6749 §4.4 with §5.2 errors. It lives outside the namespace, so
 * its path item carries its own `servers`.
 *
 * Public: `tokenPathItem`.
 */
import type { Json } from './schemas.ts';

const Token = {
  type: 'object',
  properties: {
    access_token: { type: 'string', description: 'A JWT (HS256 or EdDSA).' },
    token_type: { type: 'string', const: 'Bearer' },
    expires_in: { type: 'integer', const: 3600 },
    scope: { type: 'string', description: 'Granted scopes, space-separated.' },
  },
  required: ['access_token', 'token_type', 'expires_in', 'scope'],
};

const oauthError = (codes: string[]) => ({
  type: 'object',
  properties: {
    error: { type: 'string', enum: codes },
    error_description: { type: 'string' },
  },
  required: ['error'],
});

const TokenRequest = {
  type: 'object',
  properties: {
    grant_type: { type: 'string', const: 'client_credentials' },
    scope: { type: 'string', description: '`read`, `write` or both, space-separated; default both.' },
    client_id: { type: 'string', description: 'Unless sent by HTTP Basic.' },
    client_secret: { type: 'string', description: 'Unless sent by HTTP Basic.' },
  },
  required: ['grant_type'],
};

const noStore = { 'Cache-Control': { schema: { type: 'string', const: 'no-store' } } };

/** The `/oauth/token` path item; `planned` marks it as not served yet. */
export function tokenPathItem(apiBase: string, planned: boolean): Json {
  const description =
    'Client-credentials grant (RFC 6749 §4.4). The client authenticates with HTTP Basic ' +
    '`client_id:client_secret` or with body fields, and acts as the one user it is bound to. ' +
    'No refresh tokens.' +
    (planned ? ' Planned: this server does not serve this endpoint yet.' : '');
  return {
    servers: [{ url: apiBase }],
    post: {
      operationId: 'requestToken',
      summary: 'Get an access token',
      description,
      tags: ['OAuth'],
      security: [],
      requestBody: {
        required: true,
        content: { 'application/x-www-form-urlencoded': { schema: TokenRequest } },
      },
      responses: {
        200: {
          description: 'A bearer token for `Authorization: Bearer …`.',
          headers: noStore,
          content: { 'application/json': { schema: Token } },
        },
        400: {
          description: 'RFC 6749 §5.2 error.',
          headers: noStore,
          content: {
            'application/json': {
              schema: oauthError(['invalid_request', 'unsupported_grant_type', 'invalid_scope']),
            },
          },
        },
        401: {
          description: 'Client authentication failed.',
          headers: {
            ...noStore,
            'WWW-Authenticate': { schema: { type: 'string' } },
          },
          content: { 'application/json': { schema: oauthError(['invalid_client']) } },
        },
      },
    },
  };
}
