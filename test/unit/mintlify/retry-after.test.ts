import { describe, expect, it } from 'vitest';
import { parseRetryAfterMs } from '../../../src/mintlify/retry-after.js';

const NOW = Date.parse('2025-06-02T12:00:00Z');

describe('parseRetryAfterMs', () => {
  it.each([
    ['0', 0],
    ['1', 1_000],
    ['120', 120_000],
    [' 30 ', 30_000],
    ['007', 7_000],
  ])('reads delta-seconds %j as %i ms', (header, expected) => {
    expect(parseRetryAfterMs(header, NOW)).toBe(expected);
  });

  it.each([
    ['an HTTP-date 90 s ahead', 'Mon, 02 Jun 2025 12:01:30 GMT', 90_000],
    ['an RFC 850 date 90 s ahead', 'Monday, 02-Jun-25 12:01:30 GMT', 90_000],
    ['an HTTP-date in the past (clamped to 0)', 'Mon, 02 Jun 2025 11:00:00 GMT', 0],
    ['an HTTP-date equal to now', 'Mon, 02 Jun 2025 12:00:00 GMT', 0],
  ])('reads %s', (_case, header, expected) => {
    expect(parseRetryAfterMs(header, NOW)).toBe(expected);
  });

  it('measures an HTTP-date from the current time by default', () => {
    const inAMinute = new Date(Date.now() + 60_000).toUTCString();
    const ms = parseRetryAfterMs(inAMinute);
    expect(ms).toBeGreaterThan(58_000);
    expect(ms).toBeLessThanOrEqual(60_000);
  });

  it.each([null, undefined, '', '   ', 'soon', '-5', '1.5', '1e3', '0x10', 'Mon, 32 Foo 2025'])(
    'gives undefined for %j',
    (header) => {
      expect(parseRetryAfterMs(header, NOW)).toBeUndefined();
    },
  );
});
