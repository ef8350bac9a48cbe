/** Growth of the poll interval while a job shows no change. */
export const BACKOFF_FACTOR = 1.5;

/** The next poll interval: reset to `minMs` on a change, otherwise grow towards `maxMs`. */
export function nextPollInterval(currentMs: number, changed: boolean, minMs: number, maxMs: number): number {
  if (changed) return minMs;
  return Math.min(maxMs, Math.max(minMs, Math.round(currentMs * BACKOFF_FACTOR)));
}

/** Longest wait between attempts at a post Slack refused for now (5xx, timeouts). */
export const RETRY_CAP_MS = 5 * 60_000;
/** Wait between attempts while Slack refuses the bot's token: nothing works until an admin acts. */
export const SLOW_RETRY_MS = 5 * 60_000;

/** The wait before the next attempt at something that failed: doubling from `minMs`, capped. */
export function nextRetryDelay(previousMs: number | undefined, minMs: number, capMs = RETRY_CAP_MS): number {
  return Math.min(capMs, previousMs ? previousMs * 2 : minMs);
}
