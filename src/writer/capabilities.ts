/**
 * What a target's API can do, by namespace, as data (STYLE.md: capabilities declared, never `if (isTec)`).
 * `calendar/events/v1` is ours (partial updates D1, `force=true` D4); `tribe/events/v1` is The Events
 * Calendar 6.2.6 as observed live (contract C.4, C.13, C.16).
 */
import type { TargetCapabilities } from './target.ts';

const KNOWN: Readonly<Record<string, TargetCapabilities>> = Object.freeze({
  'calendar/events/v1': Object.freeze({
    updatesReplace: false,
    permanentDelete: true,
    maxPerPage: 50,
    refusesEmptyStrings: false,
  }),
  'tribe/events/v1': Object.freeze({
    updatesReplace: true,
    permanentDelete: false,
    maxPerPage: 50,
    refusesEmptyStrings: true,
    unwritableFields: Object.freeze({ event: Object.freeze(['currency_code']) }),
    whoAmI: '/wp/v2/users/me',
  }),
});

/** An unknown namespace (a fork or a newer TEC) gets TEC's assumptions: they lose nothing anywhere. */
const CAUTIOUS: TargetCapabilities = KNOWN['tribe/events/v1'];

export function capabilitiesFor(namespace: string): TargetCapabilities {
  return KNOWN[namespace.replace(/^\/+|\/+$/g, '')] ?? CAUTIOUS;
}
