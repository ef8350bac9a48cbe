import { setTimeout as sleep } from 'node:timers/promises';
import type { Fields, Logger } from '../log.js';
import type { Claims } from './claims.js';

/** The claim's life: renewed by `stillOurs` where the work runs long, released when a try ends. */
const CLAIM_MS = 60_000;
/** After a failed try, or while another instance holds the claim: the first wait, doubled up to RETRY_MAX_MS. */
const RETRY_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** A try to be made again: at least `afterMs` later (the first wait otherwise), logged with `fields`. */
export interface Again {
  afterMs?: number;
  fields?: Fields;
}

export interface OneInstanceWork<T> {
  /** The claim's key: the instance holding it does the work. */
  key: string;
  /** Whether the work was done since this instance began waiting for it (asked before a try, and once claimed). */
  doneElsewhere(): Promise<boolean>;
  /** One try, under the claim. `stillOurs` throws once the app stops or another instance took the claim over. */
  work(stillOurs: () => Promise<void>): Promise<{ done: T } | { again: Again }>;
  /** What is logged: `<event>_retry` before each wait after a failed try, `<event>_release_failed`. */
  event: string;
  /** The first wait between tries (tests shorten it). */
  retryMs?: number;
}

/**
 * Does `work` on one instance of the app: the one holding the claim does it; the others wait, done once it is done,
 * taking over when the holder died midway (its claim lapses). A failed try (a throw, or the work asking again) lets
 * the claim go and is tried again, the wait doubling, until the work is done or the app stops. A stopping instance
 * lets its claim go at once (the work ends at its next `stillOurs`), so another takes over now; a stop is not a
 * failure and logs no retry. Resolves with the work's value, or undefined when another did it or the app stopped.
 */
export async function onOneInstance<T>(
  deps: { store: { claims: Claims }; instanceId: string; log: Logger; stopping?: AbortSignal | undefined },
  { key, doneElsewhere, work, event, retryMs = RETRY_MS }: OneInstanceWork<T>,
): Promise<T | undefined> {
  const { store, instanceId, log, stopping } = deps;
  const release = () =>
    store.claims.release(key, instanceId).catch((error: unknown) => log.warn(`${event}_release_failed`, { error }));
  const stillOurs = async () => {
    stopping?.throwIfAborted();
    if (!(await store.claims.renew(key, instanceId, CLAIM_MS))) throw new Error('another instance took it over');
  };
  const letGo = () => void release();
  stopping?.addEventListener('abort', letGo, { once: true });
  try {
    for (let waitMs = retryMs; !stopping?.aborted; waitMs = Math.min(waitMs * 2, RETRY_MAX_MS)) {
      let again: Again | undefined;
      let claimed = false;
      try {
        if (await doneElsewhere()) return undefined;
        claimed = await store.claims.claim(key, instanceId, CLAIM_MS);
        if (claimed) {
          // Another instance may have done it and released the claim between the look above and this claim.
          const tried = (await doneElsewhere()) ? undefined : await work(stillOurs);
          await release();
          if (!tried) return undefined;
          if ('done' in tried) return tried.done;
          again = tried.again;
        }
      } catch (error) {
        // the store guard counts a store failure; a claim not released lapses by its TTL.
        if (claimed) await release();
        again = { fields: { error } };
      }
      const inMs = Math.max(waitMs, again?.afterMs ?? 0);
      if (again && !stopping?.aborted) log.warn(`${event}_retry`, { retry_in_ms: inMs, ...again.fields });
      // A stop ends the wait early; the loop then ends.
      await sleep(inMs, undefined, { signal: stopping }).catch(() => undefined);
    }
    return undefined;
  } finally {
    stopping?.removeEventListener('abort', letGo);
  }
}
