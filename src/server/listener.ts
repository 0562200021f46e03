/**
 * The HTTP server, made as Fastify makes its own (fastify/lib/server.js: `http.createServer` with the
 * `http` options, then the keep-alive, request and idle timeouts), with a request listener that first
 * asks `early` for a kept answer (response-cache.ts: anonymous GETs answered before routing) and hands
 * Fastify every request it does not answer, at once or when it has looked.
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import type { FastifyServerFactory } from 'fastify';
import type { EarlyAnswer } from './response-cache.ts';

export function serverAnsweringEarly(early: () => EarlyAnswer): FastifyServerFactory {
  return (handler, opts) => {
    const fastify = handler as (req: IncomingMessage, res: ServerResponse) => void;
    const server: Server = createServer((opts.http ?? {}) as ServerOptions, (req, res) => {
      const answer = early()(req, res);
      if (answer === false) return fastify(req, res);
      answer.then(
        (answered) => answered || fastify(req, res),
        () => fastify(req, res),
      );
    });
    server.keepAliveTimeout = opts.keepAliveTimeout as number;
    server.requestTimeout = opts.requestTimeout as number;
    server.setTimeout(opts.connectionTimeout as number);
    return server;
  };
}
