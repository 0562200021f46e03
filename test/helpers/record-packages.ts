/**
 * `node --import ./test/helpers/record-packages.ts …`: writes the names of the packages the process
 * loaded (from node_modules, by resolved URL) and of the Node modules it imported (`node:http`) to the file
 * named by RECORD_PACKAGES when it exits.
 */

import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const loaded = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
    if (m) loaded.add(m[1]);
    else if (resolved.url.startsWith('node:')) loaded.add(resolved.url);
    return resolved;
  },
});
process.on('exit', () => {
  if (process.env.RECORD_PACKAGES) writeFileSync(process.env.RECORD_PACKAGES, [...loaded].sort().join('\n'));
});
