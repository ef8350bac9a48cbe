import type { Deps } from '../deps.js';
import { keys } from '../store/keys.js';

/** Slack may deliver an event again; remember what was handled this long. */
export const DEDUPE_TTL_MS = 60 * 60 * 1000;

export type SeenDeps = Pick<Deps, 'store' | 'log' | 'metrics' | 'instanceId' | 'projects'>;

/**
 * Claims `key` (an event's or a message's) for this deployment: false, logged and counted, when a delivery before
 * claimed it. Keyed by the deployment's default project (bots may share a Redis). Throws when the store fails.
 */
export async function claimSeen(
  deps: SeenDeps,
  key: string,
  kind: 'event' | 'message',
  retryNum: number | undefined,
): Promise<boolean> {
  if (await deps.store.claims.claim(key, deps.instanceId, DEDUPE_TTL_MS)) return true;
  deps.log.info('agent.duplicate_event', { key, retry_num: retryNum });
  deps.metrics.duplicatePrevented(kind);
  return false;
}

/**
 * The guard of every event door whose answer does not go through `handleTurn` (which claims its own): a report
 * asked of the bot, `my jobs`, Stop. False for Slack's redelivery (same `event_id`) of an event answered already.
 * Without the store a redelivery cannot be told: the event is answered, as what answers it needs the store too and
 * says so.
 */
export async function firstEvent(
  deps: SeenDeps,
  { eventId, retryNum }: { eventId: string; retryNum?: number | undefined },
): Promise<boolean> {
  try {
    return await claimSeen(deps, keys.seenEvent(deps.projects.defaultProject, eventId), 'event', retryNum);
  } catch (error) {
    deps.log.error('store.degraded', { op: 'agent.dedupe', error });
    return true;
  }
}
