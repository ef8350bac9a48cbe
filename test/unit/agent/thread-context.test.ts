import { describe, expect, it } from 'vitest';
import { contextOf } from '../../../src/agent/thread-context.js';

describe('contextOf (thread context cap)', () => {
  it('keeps every line, oldest first, marked as context, when they fit', () => {
    const { text, note } = contextOf(['a: one', 'b: two'], 100);
    expect(text.split('\n')).toEqual([
      expect.stringContaining('--- Context: the 2 earlier messages'),
      'a: one',
      'b: two',
      '--- End of context ---',
    ]);
    expect(note).toBe('context: 2 earlier thread messages (capped at 100 characters)');
  });

  it('drops the oldest lines first past the cap and says how many', () => {
    const { text, note } = contextOf(['a: 1234567890', 'b: 1234567890', 'c: 1234567890'], 30);
    expect(text).not.toContain('a: ');
    expect(text).toContain('b: 1234567890\nc: 1234567890');
    expect(note).toBe('context: the last 2 of 3 earlier thread messages (capped at 30 characters, oldest left out)');
  });

  it('cuts the newest message alone when it is longer than the cap, keeping its end', () => {
    const { text } = contextOf(['old', `new ${'x'.repeat(50)}END`], 20);
    const kept = text.split('\n')[1] as string;
    expect(kept.length).toBeLessThanOrEqual(20);
    expect(kept.endsWith('END')).toBe(true);
    expect(text.split('\n')).not.toContain('old');
  });
});
