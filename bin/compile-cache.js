/**
 * Loaded with `--import` before every command (package.json's scripts, bin/calsync.js): turns on Node's
 * compile cache (`module.enableCompileCache`, Node 22.1+), so that from the second run on Node takes each
 * module's compiled code, and the JavaScript of each of calsync's .ts files, from the cache instead of
 * compiling it again — and never loads its TypeScript stripper (~18 MB), which a .ts entry file would
 * load before it could turn the cache on itself (issue 17: an import of the sample 2.35–2.71 → 1.57–1.89 s
 * of CPU, 183–186 → 160–161 MB peak RSS; `import --help` 0.3 → 0.08 s, 93 → 58 MB).
 *
 * Plain JavaScript for that reason. The cache lives in `$NODE_COMPILE_CACHE`, else
 * `<os.tmpdir()>/node-compile-cache`; Node keys each entry by the file's content and its own version,
 * so an edited file or another Node compiles afresh, and `NODE_DISABLE_COMPILE_CACHE=1` turns it off. A
 * cache that cannot be made or written (a read-only /tmp) only means no cache: Node reports that in the
 * returned status, which this file ignores, and the run goes on as without it.
 */
import module from 'node:module';

try {
  module.enableCompileCache?.();
} catch {
  // Never a reason to fail a run: it only runs slower.
}
