import { describe, expect, it } from 'vitest';
import { hasWords } from '../../../src/agent/steering.js';
import { threadKindOf } from '../../../src/store/jobs.js';

describe('hasWords', () => {
  it.each([
    ['thanks!', true],
    ['v2', true],
    ['ありがとう', true],
    ['@Bob Lee 👍', true],
    [':tada:', false],
    [':+1::skin-tone-2: !!', false],
    ['🎉🇺🇸👨‍👩‍👧', false],
    ['...?', false],
    ['', false],
  ])('%j: %s', (text, words) => {
    expect(hasWords(text)).toBe(words);
  });
});

describe('threadKindOf', () => {
  it('reads the kind kept with the job, and for an older record tells it by where the status message is', () => {
    expect(threadKindOf({ thread: 'joined', threadTs: '1.0', statusTs: '1.0' })).toBe('joined');
    expect(threadKindOf({ threadTs: '1.0', statusTs: '1.0' })).toBe('own');
    expect(threadKindOf({ threadTs: '1.0', statusTs: '2.0' })).toBe('joined');
  });
});
