import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../../src/agent/tracking/outcome.js';
import type { AgentJob } from '../../../../src/mintlify/schemas.js';

const job = (overrides: Partial<AgentJob>): AgentJob => ({ id: 'job_1', status: 'active', prLink: null, ...overrides });
const first = { prLink: null, round: 0 };

describe('outcomeOf', () => {
  it('has no outcome while the job is active', () => {
    expect(outcomeOf(job({ status: 'active' }), first)).toBeUndefined();
  });

  it.each([
    [
      job({ status: 'completed', prLink: 'https://github.com/a/b/pull/1' }),
      first,
      { kind: 'pull_request', prLink: 'https://github.com/a/b/pull/1', updated: false },
    ],
    [job({ status: 'completed', prLink: null }), first, { kind: 'no_changes' }],
    [job({ status: 'completed' }), first, { kind: 'no_changes' }],
    [job({ status: 'failed' }), first, { kind: 'failed' }],
    [job({ status: 'archived' }), first, { kind: 'archived' }],
    [
      job({ status: 'archived', prLink: 'https://github.com/a/b/pull/1' }),
      first,
      { kind: 'archived', prLink: 'https://github.com/a/b/pull/1' },
    ],
  ])('maps %o to its outcome', (polled, record, expected) => {
    expect(outcomeOf(polled, record)).toEqual(expected);
  });

  it('calls a follow-up ending on the same PR an update', () => {
    const polled = job({ status: 'completed', prLink: 'https://github.com/a/b/pull/1' });
    expect(outcomeOf(polled, { prLink: 'https://github.com/a/b/pull/1', round: 1 })).toMatchObject({ updated: true });
    expect(outcomeOf(polled, { prLink: 'https://github.com/a/b/pull/2', round: 1 })).toMatchObject({ updated: false });
  });
});
