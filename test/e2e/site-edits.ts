/**
 * What the lost-links tests do to a local data file as a site's admin would (items found by name or title,
 * edited, trashed or deleted through the API), and the two ways they run calsync on it: `npm run import`
 * and `npm run sync` of a pipeline with an update policy.
 */
import { writeFile } from 'node:fs/promises';
import { main as importMain } from '../../src/cli/import.ts';
import { main as syncMain } from '../../src/cli/sync.ts';
import { openLocalTarget } from '../../src/embedded/local-target.ts';
import { comparableText } from '../../src/model/html.ts';
import type { Kind } from '../../src/model/kind.ts';
import { fileRunSpec } from '../../src/pipeline/file-run-spec.ts';
import type { RunReport } from '../../src/pipeline/report.ts';
import { runPipeline } from '../../src/pipeline/run.ts';
import type { RemovalMode, Target } from '../../src/writer/target.ts';
import { readReport, runCli } from './helpers.ts';

async function onSite<T>(data: string, use: (site: Target) => Promise<T>): Promise<T> {
  const site = await openLocalTarget({ dataFile: data });
  try {
    return await use(site);
  } finally {
    await site.close();
  }
}

/** The id of the item of `kind` named (or titled) `name`. */
export const idOf = (data: string, kind: Kind, name: string): Promise<number> =>
  onSite(data, async (site) => {
    for await (const item of site.list(kind)) {
      const label = String(item.body.title ?? item.body.venue ?? item.body.organizer ?? item.body.name);
      if (comparableText(label) === name) return item.id;
    }
    throw new Error(`no ${kind} ${name}`);
  });

/** Removes the item of `kind` named (or titled) `name`, as an admin would. */
export const removeOnSite = async (data: string, kind: Kind, name: string, mode: RemovalMode) => {
  const id = await idOf(data, kind, name);
  await onSite(data, (site) => site.remove(kind, id, mode));
};

export const edit = (data: string, kind: Kind, id: number, body: Record<string, unknown>) =>
  onSite(data, (site) => site.update(kind, id, body));

/** `npm run import` and `npm run sync` on files named by `at`. */
export function runs(at: (name: string) => string) {
  return {
    async imp(file: string, data: string) {
      const run = await runCli(importMain, [at(file), '--data', data, '--json']);
      return { ...run, report: JSON.parse(run.stdout) as RunReport };
    },
    /** A pipeline `name` reading `<name>.ics` into `<name>.db` with update policy `update`. */
    async sync(name: string, update: string) {
      const file = at(`${name}.yaml`);
      await writeFile(
        file,
        `name: ${name}\nsource:\n  type: ics\n  path: ${name}.ics\ntarget:\n  data: ${at(`${name}.db`)}\npolicies:\n  update: ${update}\n`,
      );
      const run = await runCli(syncMain, [file, '--report', at('report.json')]);
      const [report] = await readReport<RunReport[]>(at('report.json'));
      return { ...run, report };
    },
    /**
     * A run of pipeline `name` (`<name>.ics` into `<name>.db`, update policy overwrite), in this process,
     * through `wrap` of the local target: a target that answers otherwise (as TEC does, or slowly).
     */
    through(name: string, wrap: (target: Target) => Target) {
      const spec = fileRunSpec({
        name,
        source: { type: 'ics', path: at(`${name}.ics`) },
        mapping: { timezone: 'UTC' },
        policies: { update: 'overwrite' },
        stateFile: at(`${name}.sync.db`),
        targetLabel: 'local',
      });
      const openTarget = async () => wrap(await openLocalTarget({ dataFile: at(`${name}.db`) }));
      return () => runPipeline(spec, { openTarget, now: new Date('2026-11-22T12:00:00Z') });
    },
  };
}
