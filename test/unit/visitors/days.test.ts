import { describe, expect, it } from 'vitest';
import { isCalendarDay } from '../../../src/mintlify/schemas.js';
import { dayNumber, dayString } from '../../../src/visitors/days.js';

describe('dayNumber', () => {
  it('numbers a real calendar day and writes it back', () => {
    expect(dayNumber('1970-01-01')).toBe(0);
    expect(dayNumber('2024-02-29')).toBe(19_782);
    expect(dayString(19_782)).toBe('2024-02-29');
  });

  it('refuses what is not a real day written YYYY-MM-DD', () => {
    for (const day of ['2026-02-30', '2025-02-29', '2026-13-01', '2026-00-10', '2026-1-1', '26-01-01', '', 'today']) {
      expect(dayNumber(day)).toBeUndefined();
    }
  });

  it('agrees with the service schema on which days are real', () => {
    const samples = ['2024-02-29', '2023-02-29', '2026-04-31', '2026-12-31', '0000-01-01', '9999-12-31', '2026-01-1'];
    for (const day of samples) expect(dayNumber(day) !== undefined).toBe(isCalendarDay(day));
  });
});
