import { describe, expect, it } from 'vitest';
import { createTracker, trackingIds } from '../../../../src/agent/tracking/track.js';
import { QueueUnavailableError } from '../../../../src/queue/engine.js';
import { useAgentUnit } from '../support.js';

const single = { teamId: '' };

describe('trackingIds', () => {
  it.each([
    ['a plain job', { project: 'proj_a', jobId: 'job-1' }, 'poll/proj_a/job-1/2'],
    ['a job id with a colon the engine reserves', { project: 'proj_a', jobId: 'a:b' }, 'poll/proj_a/a%3Ab/2'],
    ['a job id with slashes', { project: 'proj_a', jobId: '../x' }, 'poll/proj_a/..%2Fx/2'],
  ])('names %s by its round, valid for the engine', (_case, job, id) => {
    expect(trackingIds.poll({ ...job, round: 2, workspace: single })).toBe(id);
  });

  it('names another workspace’s job apart from the single workspace’s', () => {
    const job = { project: 'proj_a', jobId: 'j', round: 0 };
    expect(trackingIds.outcome({ ...job, workspace: { teamId: 'T2' } })).toBe('outcome/T2/proj_a/j/0');
    expect(trackingIds.refresh({ ...job, workspace: single })).toBe('refresh/proj_a/j');
  });

  it('names a very long id by a hash, so the engine id stays short', () => {
    const id = trackingIds.poll({ project: 'p', jobId: 'x'.repeat(300), round: 0, workspace: single });
    expect(id).toMatch(/^poll\/p\/h-[0-9a-f]{64}\/0$/);
  });
});

describe('the tracker', () => {
  const unit = useAgentUnit();

  it('adds a round’s first poll once, at the shortest interval, however often it is told', async () => {
    const { deps, engine } = unit();
    const real = createTracker(deps, deps.lanes.polls);
    await real.track({ project: 'proj_test', jobId: 'job_1', round: 0 });
    await real.track({ project: 'proj_test', jobId: 'job_1', round: 0 });
    expect(await engine.counts('polls')).toMatchObject({ delayed: 1 });
    await real.track({ project: 'proj_test', jobId: 'job_1', round: 1 });
    expect(await engine.counts('polls')).toMatchObject({ delayed: 2 });
  });
});

describe('the tracker while the queue’s connection is being re-made', () => {
  const unit = useAgentUnit();

  /** The polls lane as the BullMQ engine's is while Redis drops connections: the first `failures` adds refused. */
  function flakyPolls(failures: number) {
    const { deps } = unit();
    const calls: unknown[] = [];
    const lane = {
      ...deps.lanes.polls,
      add: async (
        data: Parameters<typeof deps.lanes.polls.add>[0],
        options?: Parameters<typeof deps.lanes.polls.add>[1],
      ) => {
        calls.push(data);
        if (calls.length <= failures) throw new QueueUnavailableError('Connection is closed.');
        return deps.lanes.polls.add(data, options);
      },
    };
    return { lane, calls };
  }

  it('tries the poll again until the connection is back, instead of losing the job', async () => {
    const { deps, engine } = unit();
    const { lane, calls } = flakyPolls(2);
    await createTracker(deps, lane).track({ project: 'proj_test', jobId: 'job_storm', round: 0 });
    expect(calls).toHaveLength(3);
    expect(await engine.counts('polls')).toMatchObject({ delayed: 1 });
  });

  it('gives up with the queue’s error when it stays away, so the caller can say so', async () => {
    const { deps } = unit();
    const { lane } = flakyPolls(Number.POSITIVE_INFINITY);
    await expect(
      createTracker(deps, lane).track({ project: 'proj_test', jobId: 'job_gone', round: 0 }),
    ).rejects.toThrow(QueueUnavailableError);
  });
});
