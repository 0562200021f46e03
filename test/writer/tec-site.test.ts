/**
 * The HTTP target against a site that behaves like The Events Calendar 6.2.6 (test/helpers/tec-site.ts: our
 * real server behind a loopback fixture reproducing contract part C): the same Target contract as against
 * our own server, and, first, proof that the fixture really does what real sites do — otherwise the
 * contract passing against it would prove nothing.
 */
import { join } from 'node:path';

import { createHttpTransport, createTarget } from '../../src/writer/index.ts';
import { startTecSite, TEC_NAMESPACE } from '../helpers/tec-site.ts';
import { targetContract } from './contract.ts';
import { partC, type Raw } from './part-c.ts';
import { startServer, tempDir } from './setup.ts';

const FAST = { attempts: 3, baseMs: 5, capMs: 20 };

async function build() {
  const tmp = await tempDir();
  const server = await startServer(join(tmp.dir, 'calendar.db'));
  const site = await startTecSite(server.url);
  const transport = createHttpTransport({
    url: site.url,
    auth: { type: 'basic', username: server.username, password: server.password },
  });
  const target = createTarget(transport, {
    namespace: TEC_NAMESPACE,
    label: site.url,
    concurrency: 4,
    retries: FAST,
  });
  return { tmp, server, site, target };
}

targetContract('the HTTP target on a TEC-like site', async () => {
  const { tmp, server, site, target } = await build();
  return {
    target,
    async dispose() {
      await target.close();
      await site.close();
      await server.close();
      await tmp.remove();
    },
  };
});

partC('the TEC-like site fixture', async () => {
  const { tmp, server, site, target } = await build();
  const auth = `Basic ${Buffer.from(`${server.username}:${server.password}`).toString('base64')}`;
  const raw: Raw = async (method, path, body) => {
    const res = await fetch(`${site.url}/${TEC_NAMESPACE}${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, doc: (await res.json()) as Record<string, unknown> };
  };
  return {
    target,
    raw,
    async dispose() {
      await target.close();
      await site.close();
      await server.close();
      await tmp.remove();
    },
  };
});
