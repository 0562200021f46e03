/**
 * The anchor of `bench/lists.ts`: a bare Fastify server that answers `GET /<name>` with exactly the
 * status line, headers and bytes it was given (`<dir>/<name>.json`: `{ headers }`, `<dir>/<name>.body`),
 * nothing computed per request. It prints `listening at <origin>` on stdout.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node bench/bare-fastify.ts <dir>');
const app = Fastify();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const name = file.slice(0, -'.json'.length);
  const { headers } = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    headers: Record<string, string>;
  };
  const body = readFileSync(join(dir, `${name}.body`));
  app.get(`/${name}`, (_req, reply) => reply.headers(headers).send(body));
}
const origin = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening at ${origin}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
