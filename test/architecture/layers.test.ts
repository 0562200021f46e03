/**
 * The folder rule of ARCHITECTURE.md: the folders of src/ stand on floors and a file imports only from its
 * own folder or from a lower floor. Folders on one floor do not import each other. A new folder must be
 * given its floor here before it can import anything.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/** Bottom first. */
const FLOORS: readonly (readonly string[])[] = [
  ['model'], // zod schemas, the wire's rules
  ['sources', 'store', 'writer'], // readers of files and feeds; the calendar store; the API client
  ['render', 'state', 'queue'], // records → wire shapes; the sync state; the job queue and shared host limits
  ['pipeline'], // map, plan, apply
  ['export'], // .ics and CSV from the store or an API
  ['server'], // calendar/events/v1 over a store
  ['embedded'], // one machine: the server's app as the local target, demo mode
  ['cli'], // command-line entry points
];

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const PACKAGE_JSON = fileURLToPath(new URL('../../package.json', import.meta.url));

interface Import {
  file: string;
  line: number;
  specifier: string;
}

/** Relative imports of a TypeScript file: static, `import type`, re-exports, `import()`, workers by URL. */
function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  const lineOf = (pos: number) => text.slice(0, pos).split('\n').length;
  for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
    found.push({ file, line: lineOf(ref.pos), specifier: ref.fileName });
  }
  // Worker scripts are resolved by URL at run time: `new Worker(new URL('./x.ts', import.meta.url))`.
  for (const m of text.matchAll(/new URL\(\s*(['"])(\.[^'"]+)\1\s*,\s*import\.meta\.url/g)) {
    found.push({ file, line: lineOf(m.index), specifier: m[2] });
  }
  return found.filter((i) => i.specifier.startsWith('.'));
}

const floorOf = new Map(FLOORS.flatMap((folders, floor) => folders.map((f) => [f, floor] as const)));

/** The folder of src/ a path lies in (`''` for a file directly in src/ or outside it). */
function folderOf(path: string): string {
  const rel = relative(SRC, path);
  return rel.startsWith('..') || !rel.includes('/') ? '' : rel.split('/')[0];
}

/** Every import that goes up a floor, sideways to a sibling, or into a folder without a floor. */
function violations(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const from = folderOf(path);
    for (const i of importsOf(path, text)) {
      const target = resolve(dirname(path), i.specifier);
      if (target === PACKAGE_JSON) continue; // the version, read by the CLI, the server and the clients
      const to = folderOf(target);
      if (to === from) continue;
      const where = `src/${relative(SRC, path)}:${i.line} imports '${i.specifier}'`;
      const fromFloor = floorOf.get(from);
      const toFloor = floorOf.get(to);
      if (fromFloor === undefined) out.push(`${where}: src/${from || '.'} has no floor in FLOORS`);
      else if (toFloor === undefined) out.push(`${where}: src/${to || '.'} has no floor in FLOORS`);
      else if (toFloor > fromFloor)
        out.push(`${where}: ${from} (floor ${fromFloor}) imports upward from ${to} (floor ${toFloor})`);
      else if (toFloor === fromFloor) out.push(`${where}: ${from} and ${to} share floor ${fromFloor}`);
    }
  }
  return out;
}

function sourceFiles(dir: string): { path: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(?:ts|js)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort()
    .map((path) => ({ path, text: readFileSync(path, 'utf8') }));
}

describe('folders of src/ import downward only', () => {
  it('finds no import upward or sideways', () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const found = violations(files);
    expect(
      found,
      `imports against the floors (bottom first: ${FLOORS.map((f) => f.join(' ')).join(' < ')}):\n${found.join('\n')}`,
    ).toEqual([]);
  });

  it('names the file, line and import that goes up or sideways', () => {
    const path = join(SRC, 'store', 'x.ts');
    const text = [
      "import { a } from './y.ts';",
      "import { m } from '../model/index.ts';",
      "import type { B } from '../server/app.ts';",
      "export { w } from '../writer/target.ts';",
      "const io = await import('../cli/io.ts');",
    ].join('\n');
    expect(violations([{ path, text }])).toEqual([
      "src/store/x.ts:3 imports '../server/app.ts': store (floor 1) imports upward from server (floor 5)",
      "src/store/x.ts:4 imports '../writer/target.ts': store and writer share floor 1",
      "src/store/x.ts:5 imports '../cli/io.ts': store (floor 1) imports upward from cli (floor 7)",
    ]);
  });
});
