/**
 * The calendar/events/v1 namespace: one plugin per resource. Route paths are written in
 * full below the namespace (`/events/{id}`), as the OpenAPI document shows them.
 */
import type { FastifyInstance } from 'fastify';
import { eventRoutes } from './events.ts';
import { linkedRoutes } from './linked.ts';
import type { RouteHost } from './spec.ts';
import { termRoutes } from './terms.ts';

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  // Loaded here, not by this file: the in-process caller (declareResourceRoutes below) never serves the
  // namespace index or the OpenAPI document, and need not load them (issue 17).
  const { rootRoutes } = await import('./root.ts');
  await app.register(rootRoutes);
  for (const declare of RESOURCES) await app.register(async (child) => declare(child));
}

/**
 * The resources' routes declared on `host` without Fastify, for the in-process caller
 * (src/server/in-process.ts): the same plugins, in the same order, as `registerRoutes` registers. The
 * namespace index and the OpenAPI document (rootRoutes) are reads, which that caller never takes.
 */
export async function declareResourceRoutes(host: RouteHost): Promise<void> {
  for (const declare of RESOURCES) await declare(host);
}

/** The resources' plugins with their options: the routes that write (and their reads). */
const RESOURCES: ((host: RouteHost) => Promise<void>)[] = [
  (host) => eventRoutes(host),
  (host) => linkedRoutes(host, { kind: 'venue' }),
  (host) => linkedRoutes(host, { kind: 'organizer' }),
  (host) => termRoutes(host, { kind: 'categories' }),
  (host) => termRoutes(host, { kind: 'tags' }),
];
