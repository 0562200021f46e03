/**
 * `npm run bench:profile -- <file.cpuprofile> [--top 30] [--last <s>] [--callers <name>]`: where a V8 CPU
 * profile (`node --cpu-prof`, `bench:mixed -- --cpu-prof <dir>`) spent its time: functions by self time,
 * with file:line, and the share of the profile that was idle or garbage collection. `--last 12` looks
 * at the profile's last 12 seconds only (a benchmark's measured phase, not its seeding); `--callers
 * run` adds the call paths (three frames up) that lead to functions of that name, by self time;
 * `--stalls` lists the longest runs of samples without idle time (what kept the thread busy that long).
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    last: { type: 'string' },
    callers: { type: 'string' },
    stalls: { type: 'boolean', default: false },
  },
});
if (positionals.length !== 1) {
  process.stderr.write('usage: npm run bench:profile -- <file.cpuprofile> [--top 30]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
const at: number[] = [];
profile.timeDeltas.reduce((t, d, i) => (at[i] = t + d), 0);
const from = values.last === undefined ? -Infinity : (at.at(-1) ?? 0) - Number(values.last) * 1e6;
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => {
  if (at[i] >= from) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});

const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const frameName = (id: number) => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url ? `${relative(process.cwd(), url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};
const byFunction = new Map<string, number>();
const paths = new Map<string, number>();
for (const [id, us] of selfUs) {
  const name = frameName(id);
  byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  if (values.callers !== undefined && byId.get(id)!.callFrame.functionName === values.callers) {
    const chain = [name];
    for (let p = parentOf.get(id); p !== undefined && chain.length < 4; p = parentOf.get(p))
      chain.push(frameName(p));
    const path = chain.join(' < ');
    paths.set(path, (paths.get(path) ?? 0) + us);
  }
}
const ms = (us: number) => (us / 1000).toFixed(0).padStart(7);
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)} %`;
process.stdout.write(
  `${positionals[0]}: ${(total / 1e6).toFixed(1)} s sampled\n  self ms  share  function\n`,
);
for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  process.stdout.write(`${ms(us)} ${pct(us)}  ${name}\n`);
if (paths.size > 0) {
  process.stdout.write(`\ncalls of ${values.callers}, by self time:\n`);
  for (const [path, us] of [...paths].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    process.stdout.write(`${ms(us)} ${pct(us)}  ${path}\n`);
}
if (values.stalls) {
  // Runs of consecutive busy samples: the thread never got back to its event loop in between.
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const runs: { from: number; us: number; self: Map<string, number> }[] = [];
  let run: (typeof runs)[number] | undefined;
  profile.samples.forEach((id, i) => {
    if (at[i] < from) return;
    if (idle.has(id)) {
      run = undefined;
      return;
    }
    if (!run) {
      run = { from: at[i], us: 0, self: new Map() };
      runs.push(run);
    }
    const d = profile.timeDeltas[i + 1] ?? 0;
    run.us += d;
    const name = frameName(id);
    run.self.set(name, (run.self.get(name) ?? 0) + d);
  });
  process.stdout.write('\nlongest busy runs:\n');
  for (const r of runs.sort((a, b) => b.us - a.us).slice(0, 8)) {
    const top = [...r.self].sort((a, b) => b[1] - a[1]).slice(0, 4);
    process.stdout.write(
      `${ms(r.us)} ms at ${((r.from - (at[0] ?? 0)) / 1e6).toFixed(1)} s: ${top.map(([n, us]) => `${n} ${(us / 1000).toFixed(0)}`).join('; ')}\n`,
    );
  }
}
