import { describe, expect, it } from 'vitest';
import type { PollData } from '../../../../src/agent/tracking/lane-data.js';
import { pollRound } from '../../../../src/agent/tracking/poll.js';
import { Again } from '../../../../src/queue/engine.js';
import { boundJob, useAgentUnit } from '../support.js';

const PR = 'https://github.com/acme/docs/pull/5';

describe('pollRound (the polls lane)', () => {
  const unit = useAgentUnit();

  /** A job the simulator runs, bound to its thread as `startJob` leaves it, and its round's poll data. */
  async function polledJob(patch: Partial<PollData> = {}) {
    const { deps } = unit();
    const created = await deps.mintlify.createJob('proj_test', 'Document the retry policy');
    if (!created.ok) throw new Error(created.failure.code);
    const record = await boundJob(deps, { jobId: created.value.id });
    const data: PollData = {
      workspace: { teamId: '' },
      project: record.project,
      jobId: record.jobId,
      round: 0,
      intervalMs: 50,
      lastStatus: null,
      refreshedAt: deps.now(),
      ...patch,
    };
    return { record, data };
  }
  const counts = (lane: string) => unit().engine.counts(lane);

  it('runs itself again after the next interval while the job is active, the interval growing ×1.5', async () => {
    const { data } = await polledJob({ lastStatus: 'active', intervalMs: 100 });
    const again = await pollRound(unit().deps, data);
    expect(again).toBeInstanceOf(Again);
    expect(again).toMatchObject({
      delayMs: 150,
      data: { jobId: data.jobId, round: 0, intervalMs: 150, lastStatus: 'active' },
    });
    expect(await counts('outcomes')).toMatchObject({ waiting: 0 });
  });

  it('hands an ended round’s outcome to the outcomes lane, and stops', async () => {
    const { data } = await polledJob();
    unit().sim.endJob(data.jobId, { status: 'completed', prLink: PR });
    expect(await pollRound(unit().deps, data)).toBeUndefined();
    expect(await counts('outcomes')).toMatchObject({ waiting: 1 });
  });

  it('concludes a job the service no longer knows (404) as gone', async () => {
    const { data } = await polledJob();
    expect(await pollRound(unit().deps, { ...data, jobId: 'job_unknown_to_the_service' })).toBeUndefined();
  });

  it('waits out a 5xx with the backoff, and a 429 with its Retry-After', async () => {
    const { data } = await polledJob({ intervalMs: 100 });
    unit().sim.injectFault({ kind: 'status', status: 503, count: 3, match: { operation: 'get' } });
    expect(await pollRound(unit().deps, data)).toMatchObject({ delayMs: 150 });
    unit().sim.injectFault({ kind: 'rate-limit', retryAfterSec: 9, count: 1, match: { operation: 'get' } });
    expect(await pollRound(unit().deps, data)).toMatchObject({ delayMs: 9_000 });
  });

  it('refreshes the root when what the job shows changed, or when the elapsed time is due', async () => {
    const { data } = await polledJob({ lastStatus: 'active' });
    await pollRound(unit().deps, data); // the first poll records the model: a change
    expect(await counts('refreshes')).toMatchObject({ waiting: 1 });
    const quiet = await pollRound(unit().deps, { ...data, refreshedAt: unit().deps.now() });
    expect(quiet).toBeInstanceOf(Again);
    const due = await pollRound(unit().deps, {
      ...data,
      refreshedAt: unit().deps.now() - unit().deps.config.slackRateWindowMs,
    });
    expect((due as Again).data).toMatchObject({ refreshedAt: expect.any(Number) });
  });

  it('asks for an elapsed time once a window even when the budget refuses it (not at every poll after)', async () => {
    const { data } = await polledJob({ lastStatus: 'active' });
    const { deps } = unit();
    await pollRound(deps, { ...data, refreshedAt: deps.now() }); // the first poll records the model
    const stale = deps.now() - deps.config.slackRateWindowMs;
    const polls = await Promise.all(Array.from({ length: 20 }, () => pollRound(deps, { ...data, refreshedAt: stale })));
    // The workspace's 15 elapsed-time asks a window are spent: the rest were refused, and still ask a window later.
    for (const poll of polls) expect((poll as Again).data).toMatchObject({ refreshedAt: expect.any(Number) });
    expect(polls.every((poll) => ((poll as Again).data as PollData).refreshedAt > stale)).toBe(true);
  });

  it('stops for a round that moved on (a follow-up’s poll tracks the next), an ended round and a missing record', async () => {
    const { data, record } = await polledJob();
    const { deps } = unit();
    expect(await pollRound(deps, { ...data, round: 1 })).toBeUndefined();
    expect(await pollRound(deps, { ...data, jobId: 'job_never_bound' })).toBeUndefined();
    await deps.store.jobs.endRound(record, 0, 'failed');
    expect(await pollRound(deps, data)).toBeUndefined();
    expect(unit().sim.requests.filter((r) => r.method === 'GET')).toHaveLength(0);
  });
});
