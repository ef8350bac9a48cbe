/** Growth of the poll interval while a job shows no change. */
export const BACKOFF_FACTOR = 1.5;

/** The next poll interval: reset to `minMs` on a change, otherwise grow towards `maxMs`. */
export function nextPollInterval(currentMs: number, changed: boolean, minMs: number, maxMs: number): number {
  if (changed) return minMs;
  return Math.min(maxMs, Math.max(minMs, Math.round(currentMs * BACKOFF_FACTOR)));
}
