import { describe, expect, it } from 'vitest';
import { PermanentJobError } from '../../../src/queue/engine.js';
import { isLastTry } from '../../../src/queue/job-rules.js';

describe('isLastTry', () => {
  const lane = { attempts: 3 };
  it.each([
    [1, new Error('ECONNRESET'), false],
    [2, new Error('ECONNRESET'), false],
    [3, new Error('ECONNRESET'), true],
    [1, new PermanentJobError('cannot help'), true],
  ])('try %i of 3 failing with %s is the step’s last: %s', (attempt, error, last) => {
    expect(isLastTry(lane, { attempt }, error)).toBe(last);
  });
});
