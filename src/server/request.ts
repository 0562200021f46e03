import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * What a route handler may use of its request and reply: the parts the in-process caller
 * (src/server/in-process.ts) gives as Fastify does, so that a handler runs the same code whichever way
 * it was called. Fastify's own objects have them all; TypeScript holds handlers to this subset.
 */
export type ApiRequest = Pick<
  FastifyRequest,
  'method' | 'url' | 'headers' | 'query' | 'body' | 'params' | 'caller' | 'ip'
> & { server: ApiServer };
/**
 * What a handler may use of `req.server`: the store, the settings and the password gate — the Fastify
 * app, or the in-process caller's own (src/server/in-process.ts), which has no Fastify app.
 */
export type ApiServer = Pick<FastifyInstance, 'store' | 'config' | 'credentials'>;
export interface ApiReply {
  statusCode: number;
  code(status: number): ApiReply;
  header(name: string, value: unknown): ApiReply;
  headers(values: Record<string, unknown>): ApiReply;
  type(contentType: string): ApiReply;
  request: Pick<FastifyRequest, 'responseCacheSlot'>;
}
