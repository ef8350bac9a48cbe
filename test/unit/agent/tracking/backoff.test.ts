import { describe, expect, it } from 'vitest';
import { BACKOFF_FACTOR, nextPollInterval } from '../../../../src/agent/tracking/backoff.js';

describe('nextPollInterval', () => {
  it('grows by the backoff factor while nothing changes', () => {
    expect(nextPollInterval(1_000, false, 1_000, 60_000)).toBe(1_000 * BACKOFF_FACTOR);
  });

  it('never exceeds the maximum', () => {
    expect(nextPollInterval(50_000, false, 1_000, 60_000)).toBe(60_000);
    expect(nextPollInterval(60_000, false, 1_000, 60_000)).toBe(60_000);
  });

  it('returns to the minimum on a change', () => {
    expect(nextPollInterval(60_000, true, 1_000, 60_000)).toBe(1_000);
  });

  it('never goes below the minimum', () => {
    expect(nextPollInterval(10, false, 1_000, 60_000)).toBe(1_000);
  });

  it('reaches the maximum from the minimum in a bounded number of steps', () => {
    let interval = 5_000;
    let steps = 0;
    while (interval < 60_000) {
      interval = nextPollInterval(interval, false, 5_000, 60_000);
      steps++;
    }
    expect(steps).toBe(7);
  });
});
