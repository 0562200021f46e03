/**
 * Loaded with `--import` by bin/calsync.js: lets Node run calsync's TypeScript when calsync itself sits in
 * a node_modules folder (installed from a tarball or the registry), where Node refuses to strip types
 * (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING). Only calsync's own .ts files are stripped, with Node's
 * own stripper; everything else loads as usual.
 */

import { readFileSync } from 'node:fs';
import { registerHooks, stripTypeScriptTypes } from 'node:module';
import { fileURLToPath } from 'node:url';

const SRC = new URL('../src/', import.meta.url).href;

registerHooks({
  load(url, context, nextLoad) {
    if (!url.startsWith(SRC) || !url.endsWith('.ts')) return nextLoad(url, context);
    const source = stripTypeScriptTypes(readFileSync(fileURLToPath(url), 'utf8'), { mode: 'strip' });
    return { format: 'module', source, shortCircuit: true };
  },
});
