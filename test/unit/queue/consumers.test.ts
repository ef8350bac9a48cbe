import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { servedLanes } from '../../../src/queue/consumers.js';

/**
 * A lane's workers and the jobs still waiting in it (id → data), as the engine would read them; `looks` counts the
 * CLIENT LIST asks, `reads` the ids each read of the waiting jobs asked about. `told` is who heard "no worker".
 */
function lane(workers: number) {
  const state = { workers, queued: new Map<string, unknown>(), looks: 0, reads: [] as string[][], unreadable: false };
  const engine = {
    consumers: async () => {
      state.looks++;
      return state.workers;
    },
    queued: async (_lane: string, ids: readonly string[]) => {
      state.reads.push([...ids]);
      if (state.unreadable) throw new Error('Redis did not answer');
      return new Map([...state.queued].filter(([id]) => ids.includes(id)));
    },
  };
  const told: unknown[] = [];
  const served = servedLanes(engine, async (_lane, job) => void told.push(job), 5_000);
  /** The web queues `id` (data `{ text }`) in the lane and asks whether it is served. */
  const queue = (id: string, text: string) => {
    state.queued.set(id, { text });
    return served('agent', id);
  };
  return { state, served, queue, told };
}

describe('servedLanes: whether a worker takes the work the web queues', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a lane remembered as served whose last worker left: each job queued meanwhile that still waits is told, after one look', async () => {
    const { state, served, queue, told } = lane(1);
    expect(await served('agent')).toBe(true);
    state.workers = 0;
    expect(await queue('job-1', 'first')).toBe(true);
    expect(await queue('job-2', 'second')).toBe(true);
    expect(told).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual([{ text: 'first' }, { text: 'second' }]);
    expect(state.looks).toBe(2);
    expect(state.reads).toEqual([['job-1', 'job-2']]);
    // Not remembered as served any more: the next one is answered at once.
    expect(await queue('job-3', 'third')).toBe(false);
  });

  it('a job the last worker took before it left is not told, one still waiting is: one read for both', async () => {
    const { state, served, queue, told } = lane(1);
    await served('agent');
    await queue('job-1', 'taken before the worker left');
    await queue('job-2', 'still waiting');
    state.queued.delete('job-1'); // the last worker ran it
    state.workers = 0;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual([{ text: 'still waiting' }]);
    expect(state.reads).toEqual([['job-1', 'job-2']]);
  });

  it('nobody is told when a worker is still there, or when the work no longer waits', async () => {
    const { state, served, queue, told } = lane(1);
    await served('agent');
    await queue('job-1', 'worker still there');
    await vi.advanceTimersByTimeAsync(5_000);
    await queue('job-2', 'work taken');
    state.queued.clear(); // the last worker took the work before it left
    state.workers = 0;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual([]);
  });

  it('nobody is told when the waiting jobs do not read (unknown is not "none")', async () => {
    const { state, served, queue, told } = lane(1);
    await served('agent');
    await queue('job-1', 'unreadable');
    state.workers = 0;
    state.unreadable = true;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual([]);
    expect(state.reads).toEqual([['job-1']]);
  });
});
