import type { Claims } from '../store/claims.js';

/** Mintlify allows this many job creations, and as many follow-ups, per project per hour. */
export const HOURLY_LIMIT = 100;
const WINDOW_MS = 60 * 60 * 1000;

export type LimitKind = 'create' | 'follow_up';
export type Slot = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * Takes one of the project's hourly slots, counted in the store so replicas share the count.
 * The window starts at the first use and lasts an hour, so refusals can say when it reopens.
 */
export async function takeSlot(claims: Claims, projectId: string, kind: LimitKind): Promise<Slot> {
  const { count, resetInMs } = await claims.increment(`limit:${kind}:${projectId}`, WINDOW_MS);
  return count <= HOURLY_LIMIT ? { ok: true } : { ok: false, retryAfterMs: resetInMs };
}
