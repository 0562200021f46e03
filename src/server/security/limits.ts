/**
 * Socket limits against slow and abusive clients, as Fastify server options, and the answers Node's
 * HTTP parser makes us write by hand when a client breaks them.
 *
 * Public: `SocketLimits` (config.ts holds the defaults), `checkLimits`, `serverOptions(limits)` (spread
 * into `Fastify({...})` in app.ts; `npm run serve` and every test that listens get them from there),
 * which also answers the errors met before routing (unparsable requests and URLs).
 *
 * - `headersTimeoutMs`: the whole request head must arrive within it. This is what stops slowloris
 *   (a client sending its headers a byte at a time): an idle timeout never fires on it, as every byte
 *   resets it. Node answers 408 and closes (its `ERR_HTTP_REQUEST_TIMEOUT`).
 * - `requestTimeoutMs`: the same for head and body together (a body trickled in); ≥ headersTimeoutMs,
 *   or Node refuses to start.
 * - `idleTimeoutMs`: a socket with no traffic either way for this long is closed (Fastify's
 *   `connectionTimeout`).
 * - `keepAliveTimeoutMs`: how long an idle keep-alive connection is kept between requests; Node
 *   announces it as `Keep-Alive: timeout=<s>`.
 * - `maxHeaderBytes`: request line plus headers; more is 431 (Node's `maxHeaderSize`).
 *
 * Node checks the two request timeouts every `connectionsCheckingInterval` (30 s by default), so a
 * 10 s timeout could take 40 s to fire; the interval is derived here to keep the overshoot small.
 */

import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyHttpOptions, FastifyReply, FastifyRequest } from 'fastify';
import { RAW_SECURITY_HEADERS } from './headers.ts';

export interface SocketLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
}

/** Throws when the limits cannot work together (`where` names the option, for the message). */
export function checkLimits(limits: SocketLimits, where = 'limits'): void {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new Error(`${where}.${name}: expected a positive integer, got ${value}`);
    }
  }
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    throw new Error(
      `${where}.requestTimeoutMs (${limits.requestTimeoutMs}) must be ≥ headersTimeoutMs (${limits.headersTimeoutMs})`,
    );
  }
}

export function serverOptions(limits: SocketLimits): FastifyHttpOptions<Server> {
  const checkEvery = Math.max(10, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4)));
  return {
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    http: {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: checkEvery,
    },
    clientErrorHandler,
    frameworkErrors,
  };
}

/**
 * URLs the router cannot read (bad percent-encoding, a path parameter over Fastify's 100-character
 * limit) are answered before any hook runs: the catalogue's shape and the security headers are set here.
 */
function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const answer =
    err.code === 'FST_ERR_BAD_URL'
      ? {
          status: 400,
          code: 'rest_invalid_url',
          message: `The URL ${req.url} is not valid (bad %-encoding).`,
        }
      : err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? { status: 414, code: 'rest_url_too_long', message: 'A part of the URL path is too long.' }
        : { status: 500, code: 'rest_internal_error', message: 'The server could not complete the request.' };
  reply
    .code(answer.status)
    .headers(RAW_SECURITY_HEADERS)
    .type('application/json; charset=UTF-8')
    .send({ code: answer.code, message: answer.message, data: { status: answer.status } });
}

/**
 * With each status its reason phrase, as node:http's `STATUS_CODES` has it: this file is read by
 * config.ts, so by the in-process caller too (in-process.ts), which loads no node:http (~7 MB of a
 * process's memory, issue 17).
 */
const RAW_ERRORS: Record<string, { status: number; reason: string; code: string; message: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    reason: 'Request Timeout',
    code: 'rest_request_timeout',
    message: 'The request was not received in time.',
  },
  HPE_HEADER_OVERFLOW: {
    status: 431,
    reason: 'Request Header Fields Too Large',
    code: 'rest_headers_too_large',
    message: 'The request headers are too large.',
  },
};

/**
 * Errors of Node's HTTP parser arrive before Fastify has a request, so no hook runs: the answer is
 * written on the socket, in the catalogue's shape and with the security headers, and the connection
 * closed (Node's own `clientError` behaviour, which Fastify's default handler copies).
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset or already closed socket has nobody to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const known = RAW_ERRORS[err.code ?? ''] ?? {
    status: 400,
    reason: 'Bad Request',
    code: 'rest_bad_request',
    message: 'The request could not be parsed as HTTP/1.1.',
  };
  const body = JSON.stringify({ code: known.code, message: known.message, data: { status: known.status } });
  if (socket.writable) {
    const headers = {
      ...RAW_SECURITY_HEADERS,
      'Content-Type': 'application/json; charset=UTF-8',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    };
    const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`HTTP/1.1 ${known.status} ${known.reason}\r\n${lines.join('')}\r\n${body}`);
  }
  socket.destroy(err);
}
