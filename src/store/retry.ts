import pRetry from 'p-retry';
import type { Logger } from '../log.js';

/** Tries at a store write that must not be lost (a job the service already accepted), and the first wait. */
const RETRIES = 5;
const FIRST_WAIT_MS = 250;

/**
 * Runs a store write again, with doubling waits (about 8 s in all), until it succeeds: for state that must
 * follow what the service already did. The last failure is thrown to the caller, who tells the user.
 */
export function persist<T>(log: Logger, op: string, write: () => Promise<T>): Promise<T> {
  return pRetry(write, {
    retries: RETRIES,
    minTimeout: FIRST_WAIT_MS,
    factor: 2,
    onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
      if (retriesLeft > 0) {
        log.warn('store.retry', {
          op,
          attempt: attemptNumber,
          retry_in_ms: FIRST_WAIT_MS * 2 ** (attemptNumber - 1),
          error,
        });
      }
    },
  });
}
