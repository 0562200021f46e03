/**
 * Where a run writes: the local target (our server in-process over `data/calendar.db`) or an API root
 * with a namespace, with credentials from the environment — never from the command line, where they would
 * end up in shell history and `ps`. Also where that target's sync state lives: one file per target.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type PQueue from 'p-queue';
import type { Logger } from 'pino';
import type { HttpAuth } from '../writer/http-transport.ts';
import type { Target } from '../writer/target.ts';

export interface TargetSpec {
  /** `local` or an API root such as `https://site.example/wp-json`. */
  url: string;
  /** Local target: the SQLite file. */
  data: string;
  namespace: string;
  auth?: HttpAuth;
  concurrency?: number;
  requestsPerSecond?: number;
  timeoutMs?: number;
  /**
   * Where a remote target's sync state lives; default `$CALSYNC_STATE_DIR`, else `data/sync` under the
   * working directory. A nightly job points it at a volume that outlives the container.
   */
  stateDir?: string;
}

export interface TargetChoice {
  label: string;
  stateFile: string;
  /**
   * A remote target's host (`site.example:443`) and the rate its definition asks for: pipelines writing to
   * one host share one queue (sync.ts), so that together they keep to it. Absent for the local target.
   */
  remote?: { host: string; concurrency?: number; requestsPerSecond?: number };
  /**
   * Opens the target; a remote one sends through `queue` when given (shared by pipelines of one host) and
   * logs its retries to `logger` (the run's, so that they carry its run id).
   */
  open: (options?: OpenOptions) => Promise<Target>;
  /** Nothing can be on the target yet: a local store whose file does not exist. */
  isNew?: () => boolean;
}

export interface OpenOptions {
  queue?: PQueue;
  logger?: Logger;
}

export function chooseTarget(spec: TargetSpec): TargetChoice {
  if (spec.url === 'local') {
    const data = resolve(spec.data);
    return {
      label: `local ${spec.data}`,
      // Beside the data file: `data/calendar.db` → `data/calendar.sync.db`.
      stateFile: `${data.replace(/\.(db|sqlite3?)$/, '')}.sync.db`,
      // Loaded when opened: the server behind it (Fastify, sharp, …) is no part of a run to a remote site.
      open: async () => {
        const { openLocalTarget } = await import('../embedded/local-target.ts');
        return openLocalTarget({ dataFile: data, concurrency: spec.concurrency });
      },
      isNew: () => !existsSync(data),
    };
  }
  const url = new URL(spec.url);
  const name = `${url.host}${url.pathname}-${spec.namespace}`
    .replace(/[^A-Za-z0-9.]+/g, '-')
    .replace(/-+$/, '');
  const label = `${url.origin}${url.pathname.replace(/\/+$/, '')} (${spec.namespace})`;
  return {
    label,
    stateFile: resolve(spec.stateDir ?? process.env.CALSYNC_STATE_DIR ?? join('data', 'sync'), `${name}.db`),
    remote: { host: url.host, concurrency: spec.concurrency, requestsPerSecond: spec.requestsPerSecond },
    // The HTTP client (undici) is loaded when opened: a run to the local target has no use for it.
    open: async ({ queue, logger }: OpenOptions = {}) => {
      const { createHttpTransport, createTarget } = await import('../writer/index.ts');
      return createTarget(
        createHttpTransport({ url: spec.url, auth: spec.auth, timeoutMs: spec.timeoutMs }),
        {
          namespace: spec.namespace,
          label,
          concurrency: spec.concurrency,
          requestsPerSecond: spec.requestsPerSecond,
          queue,
          onRetry: ({ error, attempt, delayMs }) =>
            logger?.warn(
              {
                code: error.code,
                status: error.status,
                method: error.method,
                path: error.path,
                attempt,
                delayMs,
              },
              `${error.message}; trying again in ${delayMs} ms`,
            ),
        },
      );
    },
  };
}

/**
 * Credentials for a remote target from the environment: `CALSYNC_USER` + `CALSYNC_APP_PASSWORD`
 * (an application password, Basic) or `CALSYNC_TOKEN` (Bearer).
 */
export function authFromEnv(env: NodeJS.ProcessEnv): HttpAuth {
  if (env.CALSYNC_TOKEN) return { type: 'bearer', token: env.CALSYNC_TOKEN };
  if (env.CALSYNC_USER && env.CALSYNC_APP_PASSWORD) {
    return { type: 'basic', username: env.CALSYNC_USER, password: env.CALSYNC_APP_PASSWORD };
  }
  return { type: 'none' };
}
