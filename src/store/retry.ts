import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../log.js';

/** Attempts at a store write that must not be lost (a job the service already accepted), and the first wait. */
const ATTEMPTS = 6;
const FIRST_WAIT_MS = 250;

/**
 * Runs a store write again, with doubling waits (about 8 s in all), until it succeeds: for state that must
 * follow what the service already did. The last failure is thrown to the caller, who tells the user.
 */
export async function persist<T>(log: Logger, op: string, write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      const waitMs = FIRST_WAIT_MS * 2 ** (attempt - 1);
      log.warn('store.retry', { op, attempt, retry_in_ms: waitMs, error });
      await delay(waitMs);
    }
  }
}
