/** Post statuses (contract B.1) and the WordPress roles of the capability matrix (B.2). */
import { z } from 'zod';

export const STATUSES = ['publish', 'future', 'draft', 'pending', 'private', 'trash'] as const;
export type Status = (typeof STATUSES)[number];

/** What a write may ask for; `trash` only comes from DELETE (E6). */
export const WRITABLE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'] as const;
export const WritableStatus = z.enum(WRITABLE_STATUSES).meta({ 'x-wp-type': 'string' });

export const StatusFilter = z
  .union([z.array(z.string()), z.string()])
  .transform((v) => (Array.isArray(v) ? v : v.split(',')).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.enum(STATUSES)).min(1))
  .meta({ 'x-wp-type': 'array', description: 'subset of publish, future, draft, pending, private, trash' });

/** Statuses with a public permalink and a slug of their own; drafts, pending and trash have neither (A.0). */
export const PERMALINK_STATUSES: ReadonlySet<Status> = new Set(['publish', 'future', 'private']);

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];
