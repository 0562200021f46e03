/** `npm run plan -- pipelines/a.yaml [more…]`: what `npm run sync` would do, written nowhere (sync.ts). */
import { runMain } from './io.ts';
import { command } from './sync.ts';

export const main = command('plan');

if (import.meta.main) await runMain(main);
