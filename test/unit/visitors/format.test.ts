import { describe, expect, it } from 'vitest';
import { formatCount, formatPercent, formatRange, formatTime, ratioBar } from '../../../src/visitors/format.js';

describe('format', () => {
  it('writes counts with en-US thousands separators', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1,000');
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(12.6)).toBe('13');
    expect(formatCount(1e21)).toBe('1.00e+21');
    expect(formatCount(Number.NaN)).toBe('—');
  });

  it('writes percentages with one decimal, or a dash when nothing to divide by', () => {
    expect(formatPercent(1, 3)).toBe('33.3%');
    expect(formatPercent(0, 10)).toBe('0.0%');
    expect(formatPercent(10, 10)).toBe('100.0%');
    expect(formatPercent(1, 0)).toBe('—');
  });

  it('writes ranges as people read them', () => {
    expect(formatRange('2026-11-15', '2026-11-21')).toBe('15–21 Nov 2026');
    expect(formatRange('2026-11-21', '2026-11-21')).toBe('21 Nov 2026');
    expect(formatRange('2026-11-28', '2026-12-03')).toBe('28 Nov – 3 Dec 2026');
    expect(formatRange('2026-12-28', '2027-01-03')).toBe('28 Dec 2026 – 3 Jan 2027');
    expect(formatRange('2024-02-01', '2024-02-29')).toBe('1–29 Feb 2024');
  });

  it('writes the fetch time in UTC', () => {
    expect(formatTime(Date.parse('2026-11-02T07:04:59Z'))).toBe('2 Nov 2026 07:04 UTC');
  });

  it('draws human vs AI as a 10-cell bar that never hides a small share', () => {
    expect(ratioBar(7, 3)).toBe('███████░░░');
    expect(ratioBar(10, 0)).toBe('██████████');
    expect(ratioBar(0, 10)).toBe('░░░░░░░░░░');
    expect(ratioBar(1000, 1)).toBe('█████████░');
    expect(ratioBar(1, 1000)).toBe('█░░░░░░░░░');
    expect(ratioBar(0, 0)).toBe(' '.repeat(10));
    expect(ratioBar(1e300, 1e300)).toBe('█████░░░░░');
  });
});
