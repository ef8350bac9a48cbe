import { describe, expect, it } from 'vitest';
import { deliverRound } from '../../../../src/agent/tracking/deliver.js';
import type { DeliveryData } from '../../../../src/agent/tracking/lane-data.js';
import { Again } from '../../../../src/queue/engine.js';
import { USER_ID } from '../../../fixtures/slack.js';
import { boundJob, readable, useAgentUnit } from '../support.js';

const PR = 'https://github.com/acme/docs/pull/6';

describe('deliverRound (the outcomes lane)', () => {
  const unit = useAgentUnit();

  async function endedRound(patch: Partial<DeliveryData> = {}) {
    const record = await boundJob(unit().deps);
    const data: DeliveryData = {
      workspace: { teamId: '' },
      project: record.project,
      jobId: record.jobId,
      round: 0,
      outcome: { kind: 'pull_request', prLink: PR, updated: false },
      failing: {},
      ...patch,
    };
    return { record, data };
  }
  const thread = (ts: string) => unit().slack.messages.filter((m) => m.thread_ts === ts);

  it('posts the outcome in its thread once, ends the round and has the root refreshed', async () => {
    const { record, data } = await endedRound();
    expect(await deliverRound(unit().deps, data)).toBeUndefined();
    expect(thread(record.threadTs).map((m) => m.text)).toEqual([expect.stringContaining(PR)]);
    expect(await unit().deps.store.jobs.get(record)).toMatchObject({ ended: 'pull_request', prLink: PR });
    expect(await unit().engine.counts('refreshes')).toMatchObject({ waiting: 1 });
    expect(await deliverRound(unit().deps, data)).toBeUndefined(); // a redelivered job: the round already ended
    expect(thread(record.threadTs)).toHaveLength(1);
  });

  it('tries again as the same job after Slack’s Retry-After, remembering since when Slack refuses', async () => {
    const { record, data } = await endedRound();
    unit().slack.fail('chat.postMessage', { status: 429, retryAfterSec: 4 });
    const again = await deliverRound(unit().deps, data);
    expect(again).toBeInstanceOf(Again);
    expect(again).toMatchObject({ delayMs: 4_000, data: { failing: { since: expect.any(Number) } } });
    expect(await unit().deps.store.jobs.get(record)).toMatchObject({ ended: null });
  });

  it('gives up on a refusal for good: tracking stops and the requester gets the result in their DM', async () => {
    const { record, data } = await endedRound();
    unit().slack.fail('chat.postMessage', { error: 'is_archived' }, 1, (args) => args.thread_ts === record.threadTs);
    expect(await deliverRound(unit().deps, data)).toBeUndefined();
    expect(await unit().deps.store.jobs.get(record)).toMatchObject({ ended: 'untracked' });
    const dm = unit().slack.calls.find((c) => c.method === 'chat.postMessage' && c.args.channel === USER_ID);
    expect(readable(dm?.args as { text?: string })).toContain(PR);
    expect(unit().logs.text()).toContain('"event":"poller.outcome_undeliverable"');
  });

  it('does nothing for a round that moved on (a follow-up) or a record that is gone', async () => {
    const { record, data } = await endedRound();
    await unit().deps.store.jobs.startRound(record, unit().deps.now());
    expect(await deliverRound(unit().deps, data)).toBeUndefined();
    expect(await deliverRound(unit().deps, { ...data, jobId: 'job_gone' })).toBeUndefined();
    expect(thread(record.threadTs)).toHaveLength(0);
  });
});
