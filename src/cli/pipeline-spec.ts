/**
 * A loaded pipeline definition → what a run needs (RunSpec) and where it writes (TargetChoice). The
 * definition's names are the file's (snake_case); the run's are the code's.
 */

import { resolve } from 'node:path';
import { feedsFromPipeline } from '../export/feed-spec.ts';
import type { FeedPublication } from '../export/publish.ts';
import type { Pipeline } from '../pipeline/definition.ts';
import type { RunSpec } from '../pipeline/run.ts';
import type { HttpAuth } from '../writer/index.ts';
import { chooseTarget, type TargetChoice } from './target.ts';

export function specFromPipeline(p: Pipeline): {
  spec: RunSpec;
  target: TargetChoice;
  /** The `feeds:` to write after a run (those with a `path`), read from the target. */
  publish: FeedPublication;
} {
  const target = chooseTarget({
    url: p.target.url,
    data: p.target.data ?? 'data/calendar.db',
    namespace: p.target.namespace,
    auth: auth(p),
    concurrency: p.target.rate.concurrency,
    requestsPerSecond: p.target.rate.requests_per_second,
    timeoutMs: p.target.timeout_ms,
  });
  const csv = p.source.type === 'csv' ? p.source : undefined;
  const spec: RunSpec = {
    name: p.name,
    source: {
      type: p.source.type,
      path: p.source.path,
      url: p.source.url,
      timeoutMs: p.source.timeout_ms,
      maxBytes: p.source.max_bytes,
      delimiter: csv?.delimiter,
      encoding: csv?.encoding,
      dateFormat: csv?.date_format,
      columns: csv?.columns,
      header: csv?.header,
      kind: csv?.kind,
    },
    mapping: { ...p.mapping },
    window: { pastDays: p.window.past_days, futureDays: p.window.future_days },
    policies: {
      update: p.policies.update,
      delete: p.policies.delete,
      maxDeleteRatio: p.policies.max_delete_ratio,
    },
    stateFile: target.stateFile,
    targetLabel: target.label,
  };
  const publish: FeedPublication = {
    feeds: feedsFromPipeline(p.feeds, p.window),
    from:
      p.target.url === 'local'
        ? { data: resolve(p.target.data ?? 'data/calendar.db') }
        : { url: p.target.url, namespace: p.target.namespace, auth: auth(p) },
  };
  return { spec, target, publish };
}

function auth(p: Pipeline): HttpAuth | undefined {
  const a = p.target.auth;
  if (!a) return undefined;
  if (a.type === 'basic') return { type: 'basic', username: a.username, password: a.password };
  if (a.type === 'bearer') return { type: 'bearer', token: a.token };
  return {
    type: 'oauth2',
    tokenUrl: a.token_url,
    clientId: a.client_id,
    clientSecret: a.client_secret,
    scope: a.scope,
  };
}
