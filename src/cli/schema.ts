/**
 * `npm run schema [-- --check]`: writes pipelines/pipeline.schema.json, the JSON Schema editors use to
 * complete and check pipeline files (YAML: `# yaml-language-server: $schema=./pipeline.schema.json`;
 * JSON: `"$schema": "./pipeline.schema.json"`). Generated from PipelineSchema on the input side, so keys
 * with defaults are optional; a test regenerates it and compares (Fastify's integrity check).
 *
 * Draft 7 because that is what VS Code's JSON service and the YAML language server read fully.
 * The text is laid out as `biome format` would (lists of scalars on one line when they fit in 110
 * columns), so that `npm run lint` and this script agree on the committed file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { PipelineSchema } from '../pipeline/definition.ts';
import { type CliIO, runMain, withCommonFlags } from './io.ts';

/** Where the schema is committed, relative to the repository root. */
export const SCHEMA_FILE = 'pipelines/pipeline.schema.json';
const ROOT = resolve(import.meta.dirname, '../..');
const LINE_WIDTH = 110;

const HELP = `Usage: npm run schema [-- --check]

Writes ${SCHEMA_FILE} from the pipeline definition schema (src/pipeline/definition.ts).

Options:
  --check      write nothing; exit 1 if the committed file is out of date
  -h, --help   show this help

Examples:
  npm run schema
  npm run schema -- --check`;

/** The JSON Schema of a pipeline definition file. */
export function pipelineJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PipelineSchema, { io: 'input', target: 'draft-7' }) as Record<string, unknown>;
}

/** The schema file's text, as committed. */
export function renderSchemaFile(): string {
  return `${layout(pipelineJsonSchema(), 0, 0)}\n`;
}

// JSON.stringify(…, 2) with biome's JSON layout: objects always one key per line, lists of scalars on
// one line when they fit. `used` is what precedes the value on its line (indent + key).
function layout(value: unknown, indent: number, used: number): string {
  const pad = ' '.repeat(indent + 2);
  const end = ' '.repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const scalars = value.every((item) => item === null || typeof item !== 'object');
    const inline = `[${value.map((item) => JSON.stringify(item)).join(', ')}]`;
    if (scalars && used + inline.length + 1 <= LINE_WIDTH) return inline;
    const items = value.map((item) => `${pad}${layout(item, indent + 2, pad.length)}`);
    return `[\n${items.join(',\n')}\n${end}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const lines = entries.map(([key, item]) => {
      const prefix = `${pad}${JSON.stringify(key)}: `;
      return `${prefix}${layout(item, indent + 2, prefix.length)}`;
    });
    return `{\n${lines.join(',\n')}\n${end}}`;
  }
  return JSON.stringify(value);
}

async function run(io: CliIO): Promise<number> {
  let values: { check?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: io.argv,
      options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    io.stderr.write(`schema: ${(err as Error).message}\n\n${HELP}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(`${HELP}\n`);
    return 0;
  }
  const file = resolve(ROOT, SCHEMA_FILE);
  const text = renderSchemaFile();
  if (values.check) {
    const committed = await readFile(file, 'utf8').catch(() => '');
    if (committed === text) return 0;
    io.stderr.write(`schema: ${SCHEMA_FILE} is out of date; run npm run schema\n`);
    return 1;
  }
  await writeFile(file, text);
  io.stdout.write(`wrote ${SCHEMA_FILE}\n`);
  return 0;
}

export const main = withCommonFlags(run);

if (import.meta.main) await runMain(main);
