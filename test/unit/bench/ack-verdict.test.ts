import { describe, expect, it } from 'vitest';
import { ackVerdict, median } from '../../../bench/lib/stats.js';

describe('the ack verdict (bench)', () => {
  it('takes the median of each variant’s runs, not the pooled or the worst', () => {
    expect(median([3, 90, 4])).toBe(4);
    expect(median([1, 2, 3, 4])).toBe(2.5);
    expect(ackVerdict([3, 90, 4], [3, 3.5, 2]).oursMs).toBe(4);
  });

  it('allows 2 ms over bare where that is looser than 1.2 ×', () => {
    expect(ackVerdict([5, 5, 5], [3, 3, 3])).toEqual({ oursMs: 5, bareMs: 3, allowanceMs: 5, pass: true });
    expect(ackVerdict([5.01, 5.01, 5.01], [3, 3, 3]).pass).toBe(false);
  });

  it('allows 1.2 × bare where that is looser than 2 ms over', () => {
    expect(ackVerdict([24, 24, 24], [20, 20, 20])).toEqual({ oursMs: 24, bareMs: 20, allowanceMs: 24, pass: true });
    expect(ackVerdict([24.5, 24.5, 24.5], [20, 20, 20]).pass).toBe(false);
  });
});
