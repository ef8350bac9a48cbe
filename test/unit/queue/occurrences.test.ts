import { describe, expect, it } from 'vitest';
import { cronRepeatStrategy, firstOccurrence, nextOccurrence } from '../../../src/queue/occurrences.js';

const at = (iso: string) => Date.parse(iso);

describe('cron occurrences', () => {
  // America/Nuuk, Saturday 28 Mar 2026: the clocks jump from 23:00 (-02) to 00:00 Sunday (-01), at 01:00Z.
  const nuuk = { cron: '30 23 * * *', tz: 'America/Nuuk' };
  const resumed = at('2026-03-29T01:00:00Z');

  it('runs a time a DST gap skips across midnight when the clocks resume, in both engines', () => {
    expect(firstOccurrence(nuuk, at('2026-03-28T12:00:00Z'))).toBe(resumed);
    expect(nextOccurrence(nuuk, at('2026-03-28T01:30:00Z'), at('2026-03-28T01:30:00Z'))).toBe(resumed);
    expect(nextOccurrence(nuuk, resumed, resumed)).toBe(at('2026-03-30T00:30:00Z'));
    const strategy = (after: number) => cronRepeatStrategy(after, { pattern: nuuk.cron, tz: nuuk.tz }, 'digest');
    expect(strategy(at('2026-03-28T12:00:00Z'))).toBe(resumed);
    expect(strategy(resumed)).toBe(at('2026-03-30T00:30:00Z'));
  });

  it('runs a time skipped within the day when the clocks resume that day, as croner does', () => {
    const berlin = { cron: '30 2 * * *', tz: 'Europe/Berlin' };
    expect(firstOccurrence(berlin, at('2026-03-28T12:00:00Z'))).toBe(at('2026-03-29T01:00:00Z'));
    expect(firstOccurrence({ cron: '30 23 * * *', tz: 'UTC' }, at('2026-03-28T12:00:00Z'))).toBe(
      at('2026-03-28T23:30:00Z'),
    );
  });
});
