import type { QueueInspector } from './engine.js';

/** A lane found served is not asked again for this long: CLIENT LIST is not for every request. */
const SERVED_FRESH_MS = 5_000;

/**
 * Whether a worker takes the lane's jobs now; undefined when the engine cannot tell. When the answer is the remembered
 * one, `unserved` runs if the lane, asked again as that memory lapses (within SERVED_FRESH_MS), has no worker and work
 * still waits in it: the last worker may have left since.
 */
export type Served = (lane: string, unserved?: () => Promise<void>) => Promise<boolean | undefined>;

/**
 * For the web role, after it adds work: false only when the engine says no worker consumes the lane. A served lane
 * is remembered a few seconds; an unserved one is asked again each time, so a worker that starts is seen at once.
 */
export function servedLanes(engine: Pick<QueueInspector, 'consumers' | 'counts'>, freshMs = SERVED_FRESH_MS): Served {
  const servedAt = new Map<string, number>();
  // By lane: who to tell when the look as the memory lapses finds no worker (one look for all of them).
  const toTell = new Map<string, (() => Promise<void>)[]>();
  const ask = async (lane: string) => {
    // unknown is not "none": the person is not told of a missing worker on a read failure.
    const count = await engine.consumers(lane).catch(() => undefined);
    if (count === undefined) return undefined;
    if (count > 0) servedAt.set(lane, Date.now());
    else servedAt.delete(lane);
    return count > 0;
  };
  const askAgain = async (lane: string) => {
    const unserved = toTell.get(lane) ?? [];
    toTell.delete(lane);
    if ((await ask(lane)) !== false) return;
    const counts = await engine.counts(lane).catch(() => undefined);
    // each `unserved` answers its own failures (dispatch logs them).
    if (counts && counts.waiting > 0) await Promise.allSettled(unserved.map((tell) => tell()));
  };
  return async (lane, unserved) => {
    const at = servedAt.get(lane);
    if (at === undefined || Date.now() - at >= freshMs) return ask(lane);
    if (unserved) {
      const pending = toTell.get(lane);
      if (pending) pending.push(unserved);
      else {
        toTell.set(lane, [unserved]);
        setTimeout(() => void askAgain(lane), at + freshMs - Date.now()).unref();
      }
    }
    return true;
  };
}
