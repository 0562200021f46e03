/**
 * Contract part C (test/writer/part-c.ts) against the real TEC 6.2.6 site: the checks the imitation in
 * test/helpers/tec-site.ts must also pass, so that the two agree.
 */
import { partC, type Raw } from '../writer/part-c.ts';
import { resetSite } from './kit.ts';
import { describeRealTec, tecTarget } from './site.ts';

describeRealTec('real TEC 6.2.6', (tec) => {
  partC('a real TEC 6.2.6 site', async () => {
    await resetSite(tec);
    const { username, password } = tec.users.editor;
    const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    const raw: Raw = async (method, path, body) => {
      const res = await fetch(`${tec.url}/${tec.namespace}${path}`, {
        method,
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, doc: (await res.json()) as Record<string, unknown> };
    };
    const target = tecTarget(tec);
    return { target, raw, dispose: () => target.close() };
  });
});
