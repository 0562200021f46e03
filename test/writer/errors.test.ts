/** How answers become results or WriteErrors: API errors keep their code, anything else is bad_response. */
import { describe, expect, it } from 'vitest';
import { interpret, networkError } from '../../src/writer/errors.ts';
import type { TransportRequest } from '../../src/writer/transport.ts';

const REQ: TransportRequest = { method: 'POST', path: '/tribe/events/v1/events' };
const answer = (status: number, text: string, headers: Record<string, string> = {}) => ({
  status,
  headers,
  text,
});

describe('interpret', () => {
  it('returns the document of a 2xx JSON answer', () => {
    expect(interpret(REQ, answer(201, '{"id":8}'))).toEqual({ id: 8 });
  });

  it('turns an API error into its code, status and data, retryable only for 429 and 5xx', () => {
    const body = JSON.stringify({
      code: 'term_exists',
      message: 'A term with the name provided already exists.',
      data: { status: 400, term_id: 3 },
    });
    expect(() => interpret(REQ, answer(400, body))).toThrow(
      expect.objectContaining({
        code: 'term_exists',
        status: 400,
        retryable: false,
        data: { status: 400, term_id: 3 },
      }),
    );
    const busy = JSON.stringify({
      code: 'rest_too_many_requests',
      message: 'Slow down',
      data: { status: 429 },
    });
    expect(() => interpret(REQ, answer(429, busy, { 'retry-after': '7' }))).toThrow(
      expect.objectContaining({
        code: 'rest_too_many_requests',
        retryable: true,
        retryAfter: '7',
        maybeApplied: false,
      }),
    );
  });

  it('calls an HTML page (a security plugin, a proxy) a bad_response, also with status 200', () => {
    expect(() => interpret(REQ, answer(200, '<html>Access denied</html>'))).toThrow(
      expect.objectContaining({ code: 'bad_response', status: 200, retryable: false }),
    );
    expect(() => interpret(REQ, answer(502, '<html>Bad gateway</html>'))).toThrow(
      expect.objectContaining({ code: 'bad_response', status: 502, retryable: true, maybeApplied: true }),
    );
  });
});

describe('networkError', () => {
  it('tells a refused connection (never sent) from a reset one (maybe applied) and from a timeout', () => {
    expect(networkError(REQ, Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }))).toMatchObject({
      code: 'network',
      maybeApplied: false,
      retryable: true,
    });
    expect(
      networkError(REQ, Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })),
    ).toMatchObject({
      code: 'network',
      maybeApplied: true,
    });
    expect(
      networkError(
        REQ,
        Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
      ),
    ).toMatchObject({
      code: 'timeout',
      maybeApplied: true,
    });
  });
});
