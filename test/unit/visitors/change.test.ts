import { describe, expect, it } from 'vitest';
import { changes, formatChange, formatShareChange } from '../../../src/visitors/change.js';

describe('formatChange', () => {
  it('shows rises and falls with one decimal', () => {
    expect(formatChange(1124, 1000)).toBe('▲ 12.4 %');
    expect(formatChange(969, 1000)).toBe('▼ 3.1 %');
    expect(formatChange(3, 1)).toBe('▲ 200.0 %');
  });

  it('says "new" when there was nothing before, and "—" when there is nothing to compare', () => {
    expect(formatChange(5, 0)).toBe('new');
    expect(formatChange(0, 0)).toBe('—');
    expect(formatChange(5, undefined)).toBe('—');
    expect(formatChange(Number.NaN, 3)).toBe('—');
  });

  it('shows no arrow for a change that rounds to zero', () => {
    expect(formatChange(100_000, 100_001)).toBe('± 0.0 %');
  });
});

describe('formatShareChange', () => {
  it('is the AI share’s change in percentage points', () => {
    expect(formatShareChange({ human: 80, ai: 30, total: 100 }, { human: 90, ai: 10, total: 100 })).toBe('▲ 20.0 pts');
    expect(formatShareChange({ human: 9, ai: 1, total: 10 }, { human: 8, ai: 2, total: 10 })).toBe('▼ 10.0 pts');
    expect(formatShareChange({ human: 9, ai: 1, total: 10 }, { human: 0, ai: 0, total: 0 })).toBe('—');
  });

  it('is undefined for all four when the previous period is unknown', () => {
    expect(changes({ human: 1, ai: 1, total: 2 }, undefined)).toBeUndefined();
  });
});
