import type { QueueInspector } from './engine.js';

/** A lane found served is not asked again for this long: CLIENT LIST is not for every request. */
const SERVED_FRESH_MS = 5_000;

/** Whether a worker takes the lane's jobs now; undefined when the engine cannot tell. */
export type Served = (lane: string) => Promise<boolean | undefined>;

/**
 * For the web role, after it adds work: false only when the engine says no worker consumes the lane. A served lane
 * is remembered a few seconds; an unserved one is asked again each time, so a worker that starts is seen at once.
 */
export function servedLanes(engine: Pick<QueueInspector, 'consumers'>, freshMs = SERVED_FRESH_MS): Served {
  const servedAt = new Map<string, number>();
  return async (lane) => {
    const at = servedAt.get(lane);
    if (at !== undefined && Date.now() - at < freshMs) return true;
    // unknown is not "none": the person is not told of a missing worker on a read failure.
    const count = await engine.consumers(lane).catch(() => undefined);
    if (count === undefined) return undefined;
    if (count > 0) servedAt.set(lane, Date.now());
    else servedAt.delete(lane);
    return count > 0;
  };
}
