import { describe, expect, it } from 'vitest';
import { headOf, tailOf, truncate } from '../../../src/slack/mrkdwn.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('cutting text between graphemes', () => {
  // Each row: `headOf(text, max)`, and `truncate(text, max + 1)`, which is that head and an ellipsis when it cuts.
  it.each([
    ['a flag', 'ab🇺🇸cd', 3, 'ab', 'ab…'],
    ['a flag among words (🇺🇸 never becomes 🇺…)', 'Ship 🇺🇸 docs', 6, 'Ship ', 'Ship …'],
    ['a lone flag, which fits', '🇺🇸', 1, '', '🇺🇸'],
    ['a family', 'a👨‍👩‍👧z', 4, 'a', 'a…'],
    ['a skin tone', 'a👍🏽z', 2, 'a', 'a…'],
    ['a combining accent', 'ae\u0301z', 2, 'a', 'a…'],
    ['a keycap', 'a1️⃣z', 3, 'a', 'a…'],
    ['plain emoji, one character each', 'ab😀😀', 3, 'ab😀', 'ab😀😀'],
    ['an emoji at the cut', 'ab😀cd', 3, 'ab😀', 'ab😀…'],
    ['only emoji', '😀😀😀😀', 2, '😀😀', '😀😀…'],
    ['emoji fitting exactly', '😀😀😀', 2, '😀😀', '😀😀😀'],
  ])('never inside %s', (_case, text, max, head, truncated) => {
    expect(headOf(text, max)).toBe(head);
    expect(truncate(text, max + 1)).toBe(truncated);
  });

  it('keeps whole graphemes at the end too, even of a long text', () => {
    const text = `${'😀'.repeat(5_000)}🇺🇸`;
    expect(tailOf(text, 2)).toBe('🇺🇸');
    expect(tailOf(text, 3)).toBe('😀🇺🇸');
    expect(tailOf(`x${'😀'.repeat(4_000)}`, 3_999)).not.toMatch(LONE_SURROGATE);
  });
});
