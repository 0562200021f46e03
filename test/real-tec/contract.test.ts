/**
 * The writer's Target contract (test/writer/contract.ts) against the real TEC 6.2.6 site, as an editor: the
 * suite that runs against our server and the imitation in test/helpers/tec-site.ts, here proven on the
 * real thing. The site is reset before each test.
 */
import { targetContract } from '../writer/contract.ts';
import { resetSite } from './kit.ts';
import { describeRealTec, tecTarget } from './site.ts';

describeRealTec('real TEC 6.2.6', (tec) => {
  targetContract('the HTTP target on a real TEC 6.2.6 site', async () => {
    await resetSite(tec);
    const target = tecTarget(tec);
    return { target, dispose: () => target.close() };
  });
});
