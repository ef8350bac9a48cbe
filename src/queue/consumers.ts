import type { QueueInspector } from './engine.js';

/** A lane found served is not asked again for this long: CLIENT LIST is not for every request. */
const SERVED_FRESH_MS = 5_000;

/**
 * Whether a worker takes the lane's jobs now; undefined when the engine cannot tell. When the answer is the remembered
 * one, job `id` (just added) is looked at again as that memory lapses (within SERVED_FRESH_MS): if the lane has no
 * worker then (the last one may have left since) and that job still waits, its person is told (`Unserved`).
 */
export type Served = (lane: string, id?: string) => Promise<boolean | undefined>;

/** Tells the person behind a job still waiting in a lane no worker takes, from its data as the lane holds it. */
export type Unserved = (lane: string, job: unknown) => Promise<void>;

/**
 * For the web role, after it adds work: false only when the engine says no worker consumes the lane. A served lane
 * is remembered a few seconds; an unserved one is asked again each time, so a worker that starts is seen at once.
 */
export function servedLanes(
  engine: Pick<QueueInspector, 'consumers' | 'queued'>,
  unserved: Unserved,
  freshMs = SERVED_FRESH_MS,
): Served {
  const servedAt = new Map<string, number>();
  // By lane: the jobs to look at as the memory lapses, one look for all of them. Only their ids are kept: what a
  // person is told is read back from the lane then, and a job taken or done meanwhile has nobody to tell.
  const toCheck = new Map<string, string[]>();
  const ask = async (lane: string) => {
    // unknown is not "none": the person is not told of a missing worker on a read failure.
    const count = await engine.consumers(lane).catch(() => undefined);
    if (count === undefined) return undefined;
    if (count > 0) servedAt.set(lane, Date.now());
    else servedAt.delete(lane);
    return count > 0;
  };
  const askAgain = async (lane: string) => {
    const ids = toCheck.get(lane) ?? [];
    toCheck.delete(lane);
    if ((await ask(lane)) !== false) return;
    const waiting = await engine.queued(lane, ids).catch(() => new Map<string, unknown>());
    // each `unserved` answers its own failures (dispatch logs them).
    await Promise.allSettled([...waiting.values()].map((job) => unserved(lane, job)));
  };
  return async (lane, id) => {
    const at = servedAt.get(lane);
    if (at === undefined || Date.now() - at >= freshMs) return ask(lane);
    if (id !== undefined) {
      const pending = toCheck.get(lane);
      if (pending) pending.push(id);
      else {
        toCheck.set(lane, [id]);
        setTimeout(() => void askAgain(lane), at + freshMs - Date.now()).unref();
      }
    }
    return true;
  };
}
