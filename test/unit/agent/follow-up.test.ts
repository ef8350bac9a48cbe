import { describe, expect, it } from 'vitest';
import { type FollowUpInput, followUp } from '../../../src/agent/follow-up.js';
import { createQuota, HOURLY_LIMIT } from '../../../src/agent/quota.js';
import { QueueUnavailableError } from '../../../src/queue/engine.js';
import type { JobRecord } from '../../../src/store/jobs.js';
import type { Simulator } from '../../../tools/simulator/server.js';
import { USER_ID } from '../../fixtures/slack.js';
import { followUpPrompts, readable, startedJob, storeDown, useAgentUnit } from './support.js';

const PROJECT = 'proj_test';
const ON_FOLLOW_UP = { count: 1, match: { operation: 'follow-up' } } as const;

describe('followUp', () => {
  const unit = useAgentUnit();

  /** A job `USER_ID` started with /agent, running; and Bob's instruction for it in its thread. */
  async function running(): Promise<{ record: JobRecord; input: FollowUpInput }> {
    const record = await startedJob(unit().deps, PROJECT, 'Document retries');
    const input = {
      ...record,
      ts: '1700000100.000200',
      userId: 'U456BOB',
      text: 'Also the <backoff> table',
      title: 'Also the <backoff> table',
    };
    return { record, input };
  }
  /** The instructions the service received for jobs already running. */
  const sent = () => followUpPrompts(unit().sim);
  const used = async () => (await unit().deps.quota.usage(PROJECT, 'follow_up')).used;

  it('hands the instruction to the agent, starts the next round, tracks it and refreshes the root message', async () => {
    const { deps, slack, tracked, watched } = unit();
    const { record, input } = await running();
    const updates = slack.callsTo('chat.update').length;
    expect(await followUp(deps, input)).toEqual({ ok: true, tracked: true });
    expect(sent()).toEqual(['Also the <backoff> table']);
    // The job stays the requester's: the root message still shows who asked, and what.
    expect(await deps.store.jobs.get(record)).toMatchObject({ round: 1, userId: USER_ID, prompt: 'Document retries' });
    expect(tracked.at(-1)).toEqual({ project: PROJECT, jobId: record.jobId });
    expect(watched.at(-1)).toMatchObject({ jobId: record.jobId, round: 1 });
    expect(slack.callsTo('chat.update').length).toBeGreaterThan(updates);
    expect(readable(slack.messages[0])).toContain('Working');
    expect(await used()).toBe(1);
  });

  it('refuses at the hourly limit of follow-ups without calling the service', async () => {
    const { deps } = unit();
    const { input } = await running();
    for (let i = 0; i < HOURLY_LIMIT; i++) await deps.quota.take(PROJECT, 'follow_up');
    expect(await followUp(deps, input)).toEqual({
      ok: false,
      refusal: { code: 'quota', project: PROJECT, resetInMs: expect.any(Number) },
    });
    expect(sent()).toEqual([]);
  });

  it('refuses when the store cannot count the slot, without calling the service', async () => {
    const { deps } = unit();
    const { input } = await running();
    const result = await followUp({ ...deps, quota: createQuota(storeDown()) }, input);
    expect(result).toEqual({ ok: false, refusal: { code: 'store_unavailable' } });
    expect(sent()).toEqual([]);
  });

  it.each([
    ['the job is gone (404)', (sim: Simulator, id: string) => sim.deleteJob(id), 'not_found', 0],
    ['the job is archived (400)', (sim: Simulator, id: string) => sim.endJob(id, { status: 'archived' }), 'refused', 0],
    [
      'the service rate-limits it (the slot was counted)',
      (sim: Simulator) => sim.injectFault({ ...ON_FOLLOW_UP, kind: 'rate-limit', retryAfterSec: 60 }),
      'rate_limited',
      1,
    ],
  ] as const)('when %s, says so and starts no round', async (_case, setUp, code, slotsKept) => {
    const { deps, tracked } = unit();
    const { record, input } = await running();
    setUp(unit().sim, record.jobId);
    const result = await followUp(deps, input);
    expect(result).toMatchObject({ ok: false, refusal: { code: 'service', failed: { failure: { code } } } });
    expect(await deps.store.jobs.get(record)).toMatchObject({ round: 0 });
    expect(tracked).toHaveLength(1);
    expect(await used()).toBe(slotsKept);
  });

  it('when the service answers 5xx (it may have the instruction), says so and tracks an unsure round, the root left as it is', async () => {
    const { deps, slack, tracked } = unit();
    const { record, input } = await running();
    await deps.store.jobs.endRound(record, 0, 'pull_request', 'https://github.com/acme/docs/pull/1');
    const updates = slack.callsTo('chat.update').length;
    unit().sim.injectFault({ ...ON_FOLLOW_UP, kind: 'status', status: 502 });
    expect(await followUp(deps, input)).toMatchObject({
      ok: false,
      refusal: { code: 'service', failed: { failure: { code: 'unavailable' } }, tracked: true },
    });
    expect(await deps.store.jobs.get(record)).toMatchObject({ round: 1, ended: null, unsure: 'pull_request' });
    expect(tracked).toHaveLength(2);
    expect(slack.callsTo('chat.update')).toHaveLength(updates);
    expect(await used()).toBe(1);
  });

  // Slow (about 8 s): the round is retried through the outage (store/retry.ts), whose waits cannot be shortened.
  it('says the instruction went through untracked when its round cannot be recorded', async () => {
    const { deps, tracked } = unit();
    const { input } = await running();
    const store = { ...deps.store, jobs: { ...deps.store.jobs, startRound: storeDown().jobs.startRound } };
    expect(await followUp({ ...deps, store }, input)).toEqual({ ok: true, tracked: false });
    expect(sent()).toEqual(['Also the <backoff> table']);
    expect(tracked).toHaveLength(1);
  }, 15_000);

  it('says the instruction went through untracked when the queue will not take its round’s poll', async () => {
    const { deps } = unit();
    const { input } = await running();
    const tracker = { track: async () => Promise.reject(new QueueUnavailableError('Connection is closed.')) };
    expect(await followUp({ ...deps, tracker }, input)).toEqual({ ok: true, tracked: false });
    expect(unit().logs.text()).toMatch(/"event":"queue\.unavailable".*"op":"agent\.track"/);
  });
});
