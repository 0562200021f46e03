import { execFileSync } from 'node:child_process';
import { startPostgres } from '../test/helpers/postgres.ts';
const c = await startPostgres();
try {
  const env = { ...process.env, CALSYNC_DATABASE_URL: c.url };
  const out = execFileSync('node_modules/.bin/node', ['src/cli/users.ts', 'add', 'alice', '--role', 'editor'], { env }).toString();
  console.log(out.split('\n').slice(0, 3).join('\n'));
  console.log(execFileSync('node_modules/.bin/node', ['src/cli/users.ts', 'list', '--data', c.url]).toString());
  console.log(execFileSync('node_modules/.bin/node', ['src/cli/export.ts', '--data', c.url, '--out', '-']).toString().slice(0, 200));
} finally { await c.stop(); }
