import { describe, expect, it } from 'vitest';
import { afterDelivery, afterPoll, TAKE_UP_POLLS } from '../../../../src/agent/tracking/decide.js';
import type { Delivery } from '../../../../src/agent/tracking/poster.js';
import type { ServiceFailure, ServiceResult } from '../../../../src/mintlify/failure.js';
import type { AgentJob } from '../../../../src/mintlify/schemas.js';
import type { JobRecord } from '../../../../src/store/jobs.js';

const NOW = 1_000_000;
const DAY = 86_400_000;
const timing = { now: NOW, intervalMs: 1_000, minMs: 500, maxMs: 8_000, jobMaxAgeMs: DAY };

const record: JobRecord = {
  project: 'p',
  jobId: 'j1',
  channel: 'C1',
  threadTs: '1.0',
  statusTs: '1.0',
  userId: 'U1',
  prompt: 'x',
  createdAtMs: NOW - 1_000,
  status: 'active',
  repository: null,
  ref: null,
  model: null,
  prLink: null,
  round: 0,
  roundStartedAtMs: NOW - 1_000,
  ended: null,
  attempt: null,
  rev: 0,
};

const job = (fields: Partial<AgentJob>): ServiceResult<AgentJob> => ({
  ok: true,
  value: { id: 'j1', status: 'active', ...fields },
});
const failed = (failure: ServiceFailure): ServiceResult<AgentJob> => ({
  ok: false,
  operation: 'get job',
  project: 'p',
  failure,
});

describe('afterPoll', () => {
  it.each<[string, ServiceResult<AgentJob>, Partial<JobRecord>, unknown]>([
    [
      'an active job runs on, observed',
      job({ model: 'm' }),
      {},
      { kind: 'running', observation: { status: 'active', model: 'm', repository: undefined, ref: undefined } },
    ],
    [
      'a completed job with a PR concludes',
      job({ status: 'completed', prLink: 'https://x/pr/1' }),
      {},
      { kind: 'conclude', outcome: { kind: 'pull_request', prLink: 'https://x/pr/1', updated: false } },
    ],
    [
      'a completed job without a PR',
      job({ status: 'completed', prLink: null }),
      {},
      { kind: 'conclude', outcome: { kind: 'no_changes' } },
    ],
    ['a failed job', job({ status: 'failed' }), {}, { kind: 'conclude', outcome: { kind: 'failed' } }],
    ['an archived job', job({ status: 'archived' }), {}, { kind: 'conclude', outcome: { kind: 'archived' } }],
    [
      'a 404: the job is gone',
      failed({ code: 'not_found', message: 'Job not found' }),
      {},
      { kind: 'conclude', outcome: { kind: 'gone' } },
    ],
    [
      'an id the client refused: gone',
      failed({ code: 'refused', message: 'invalid input', details: [] }),
      {},
      { kind: 'conclude', outcome: { kind: 'gone' } },
    ],
    [
      'no key for the project (Mintlify disconnected, another project connected): tracking stops',
      failed({ code: 'not_connected' }),
      {},
      { kind: 'conclude', outcome: { kind: 'disconnected' } },
    ],
    [
      'a 429 waits its Retry-After',
      failed({ code: 'rate_limited', retryAfterMs: 30_000 }),
      {},
      { kind: 'retry', waitMs: 30_000 },
    ],
    [
      'a 5xx backs off ×1.5',
      failed({ code: 'unavailable', reason: '503', ambiguous: true, lost: 'error_status', status: 503 }),
      {},
      { kind: 'retry', waitMs: 1_500 },
    ],
    [
      'still active past the maximum age expires',
      job({}),
      { roundStartedAtMs: NOW - DAY - 1 },
      { kind: 'conclude', outcome: { kind: 'expired' } },
    ],
    [
      'no answer to act on past the maximum age expires all the same',
      failed({
        code: 'unavailable',
        reason: 'response does not match the API contract',
        ambiguous: true,
        lost: 'unreadable',
        status: 200,
      }),
      { roundStartedAtMs: NOW - DAY - 1 },
      { kind: 'conclude', outcome: { kind: 'expired' } },
    ],
    [
      'a status the bot does not know runs on',
      job({ status: 'queued' }),
      {},
      { kind: 'running', observation: { status: 'queued', model: undefined, repository: undefined, ref: undefined } },
    ],
    [
      'ended past the maximum age still gets its result',
      job({ status: 'failed' }),
      { roundStartedAtMs: NOW - 2 * DAY },
      { kind: 'conclude', outcome: { kind: 'failed' } },
    ],
    [
      'the same PR after a follow-up is an update',
      job({ status: 'completed', prLink: 'https://x/pr/1' }),
      { round: 1, prLink: 'https://x/pr/1' },
      { kind: 'conclude', outcome: { kind: 'pull_request', prLink: 'https://x/pr/1', updated: true } },
    ],
    [
      'a 429 asking for no wait (Retry-After: 0, or a date past) waits the shortest interval',
      failed({ code: 'rate_limited', retryAfterMs: 0 }),
      {},
      { kind: 'retry', waitMs: 500 },
    ],
  ])('%s', (_case, answer, patch, expected) => {
    expect(afterPoll(answer, { ...record, ...patch }, timing, { seenRunning: true })).toEqual(expected);
  });

  describe('after a follow-up, which the service takes up asynchronously', () => {
    const followedUp = { ...record, round: 1, prLink: 'https://x/pr/1', roundStartedAtMs: NOW - 1_000 };
    const before = job({ status: 'completed', prLink: 'https://x/pr/1' });

    it('the previous end, before the job was seen running again, is not this round’s: poll again', () => {
      expect(afterPoll(before, followedUp, timing, { seenRunning: false })).toEqual({ kind: 'not_taken_up' });
      expect(
        afterPoll(job({ status: 'failed', prLink: 'https://x/pr/1' }), followedUp, timing, { seenRunning: false }),
      ).toEqual({
        kind: 'not_taken_up',
      });
    });

    it('an end once the job was seen running, or one with a new pull request, is this round’s', () => {
      const updated = { kind: 'conclude', outcome: { kind: 'pull_request', prLink: 'https://x/pr/1', updated: true } };
      expect(afterPoll(before, followedUp, timing, { seenRunning: true })).toEqual(updated);
      expect(
        afterPoll(job({ status: 'completed', prLink: 'https://x/pr/2' }), followedUp, timing, { seenRunning: false }),
      ).toEqual({
        kind: 'conclude',
        outcome: { kind: 'pull_request', prLink: 'https://x/pr/2', updated: false },
      });
    });

    it('the same end long after the follow-up is its result (the agent was quick, or between two polls)', () => {
      const late = { ...followedUp, roundStartedAtMs: NOW - TAKE_UP_POLLS * timing.minMs };
      expect(afterPoll(before, late, timing, { seenRunning: false })).toMatchObject({ kind: 'conclude' });
    });

    describe('when its fate is unknown (its answer was lost): it may never have reached the agent', () => {
      const unsure = { ...followedUp, unsure: 'pull_request' as const };
      const late = { ...unsure, roundStartedAtMs: NOW - TAKE_UP_POLLS * timing.maxMs };

      it('the end the thread was told, within the take-up window: poll again', () => {
        expect(afterPoll(before, unsure, timing, { seenRunning: false })).toEqual({ kind: 'not_taken_up' });
      });

      // Failed before: past a sure round's window (six shortest intervals) the round ended quietly, and an agent
      // that took the follow-up up later had its result never posted.
      it('still the end the thread was told past a sure round’s window: watched on, for six longest intervals', () => {
        const pastShort = { ...unsure, roundStartedAtMs: NOW - TAKE_UP_POLLS * timing.minMs };
        expect(afterPoll(before, pastShort, timing, { seenRunning: false })).toEqual({ kind: 'not_taken_up' });
        const almost = { ...unsure, roundStartedAtMs: NOW - TAKE_UP_POLLS * timing.maxMs + 1 };
        expect(afterPoll(before, almost, timing, { seenRunning: false })).toEqual({ kind: 'not_taken_up' });
      });

      it.each<[string, Partial<JobRecord>, ServiceResult<AgentJob>]>([
        ['the same pull request', {}, before],
        ['no changes again', { unsure: 'no_changes', prLink: null }, job({ status: 'completed', prLink: null })],
        ['a failure again', { unsure: 'failed', prLink: null }, job({ status: 'failed' })],
      ])(
        '%s past the take-up window: it never landed, the round ends as it was, nothing posted',
        (_c, patch, answer) => {
          const ended = patch.unsure ?? 'pull_request';
          expect(afterPoll(answer, { ...late, ...patch }, timing, { seenRunning: false })).toEqual({
            kind: 'not_landed',
            ended,
          });
        },
      );

      it('seen running, or a new pull request, or another end: the follow-up’s result, posted', () => {
        expect(afterPoll(before, late, timing, { seenRunning: true })).toMatchObject({
          kind: 'conclude',
          outcome: { kind: 'pull_request', updated: true },
        });
        const newPr = job({ status: 'completed', prLink: 'https://x/pr/2' });
        expect(afterPoll(newPr, unsure, timing, { seenRunning: false })).toMatchObject({ kind: 'conclude' });
        const failedNow = job({ status: 'failed' });
        const afterNoChanges = { ...late, unsure: 'no_changes' as const, prLink: null };
        expect(afterPoll(failedNow, afterNoChanges, timing, { seenRunning: false })).toMatchObject({
          kind: 'conclude',
          outcome: { kind: 'failed' },
        });
      });

      it('after an end the thread never heard (a Stop, tracking that gave up): the end is posted as usual', () => {
        expect(afterPoll(before, { ...late, unsure: 'halted' }, timing, { seenRunning: false })).toMatchObject({
          kind: 'conclude',
        });
      });
    });

    it('a first round ends as it shows', () => {
      expect(afterPoll(before, { ...followedUp, round: 0 }, timing, { seenRunning: false })).toMatchObject({
        kind: 'conclude',
      });
    });
  });
});

describe('afterDelivery', () => {
  const clock = { now: NOW, minMs: 500, jobMaxAgeMs: DAY };
  it.each<[string, Delivery, { since?: number; retryDelayMs?: number }, unknown]>([
    ['posted: end the round', { kind: 'posted', found: false }, {}, { kind: 'end' }],
    ['found in the thread: end the round', { kind: 'posted', found: true }, {}, { kind: 'end' }],
    ['a follow-up started a round: poll soon', { kind: 'superseded' }, {}, { kind: 'poll_soon' }],
    ['a peer is posting: poll soon', { kind: 'busy' }, {}, { kind: 'poll_soon' }],
    ['refused for good: give up', { kind: 'final', code: 'is_archived' }, {}, { kind: 'give_up', code: 'is_archived' }],
    [
      'a 429: wait its Retry-After',
      { kind: 'retry', code: 'ratelimited', retryAfterMs: 7_000 },
      {},
      { kind: 'retry', waitMs: 7_000, failing: { since: NOW, retryDelayMs: 500 } },
    ],
    [
      'a 5xx: back off from the shortest interval',
      { kind: 'retry', code: 'http_503' },
      {},
      { kind: 'retry', waitMs: 500, failing: { since: NOW, retryDelayMs: 500 } },
    ],
    [
      'a 5xx again: the wait doubles',
      { kind: 'retry', code: 'http_503' },
      { since: NOW - 5_000, retryDelayMs: 4_000 },
      { kind: 'retry', waitMs: 8_000, failing: { since: NOW - 5_000, retryDelayMs: 8_000 } },
    ],
    [
      'a refused token: retry slowly',
      { kind: 'retry', code: 'invalid_auth', slow: true },
      {},
      { kind: 'retry', waitMs: 300_000, failing: { since: NOW, retryDelayMs: 300_000 } },
    ],
    [
      'refused for longer than a job may run: give up',
      { kind: 'retry', code: 'http_503' },
      { since: NOW - DAY - 1 },
      { kind: 'give_up', code: 'http_503' },
    ],
  ])('%s', (_case, delivery, failing, expected) => {
    expect(afterDelivery(delivery, failing, clock)).toEqual(expected);
  });
});
