import { describe, expect, it } from 'vitest';
import { headOf, tailOf } from '../../../src/slack/graphemes.js';
import { truncate } from '../../../src/slack/mrkdwn.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cutting text between graphemes', () => {
  it.each([
    ['a flag', 'ab🇺🇸cd', 3, 'ab'],
    ['a family', 'a👨‍👩‍👧z', 4, 'a'],
    ['a skin tone', 'a👍🏽z', 2, 'a'],
    ['a combining accent', 'ae\u0301z', 2, 'a'],
    ['a keycap', 'a1️⃣z', 3, 'a'],
    ['plain emoji, one character each', 'ab😀😀', 3, 'ab😀'],
  ])('never inside %s', (_case, text, max, head) => {
    expect(headOf(text, max)).toBe(head);
  });

  it('keeps whole graphemes at the end too, even of a long text', () => {
    const text = `${'😀'.repeat(5_000)}🇺🇸`;
    expect(tailOf(text, 2)).toBe('🇺🇸');
    expect(tailOf(text, 3)).toBe('😀🇺🇸');
    expect(tailOf(`x${'😀'.repeat(4_000)}`, 3_999)).not.toMatch(LONE_SURROGATE);
  });

  it('shortens with an ellipsis without splitting a flag (🇺🇸 never becomes 🇺…)', () => {
    expect(truncate('Ship 🇺🇸 docs', 7)).toBe('Ship …');
    expect(truncate('🇺🇸', 2)).toBe('🇺🇸');
  });
});
