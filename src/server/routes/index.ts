/**
 * The calendar/events/v1 namespace: one plugin per resource. Route paths are written in
 * full below the namespace (`/events/{id}`), as the OpenAPI document shows them.
 */
import type { FastifyInstance } from 'fastify';
import { eventRoutes } from './events.ts';
import { linkedRoutes } from './linked.ts';
import { rootRoutes } from './root.ts';
import { termRoutes } from './terms.ts';

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  await app.register(rootRoutes);
  await app.register(eventRoutes);
  await app.register(linkedRoutes, { kind: 'venue' });
  await app.register(linkedRoutes, { kind: 'organizer' });
  await app.register(termRoutes, { kind: 'categories' });
  await app.register(termRoutes, { kind: 'tags' });
}
