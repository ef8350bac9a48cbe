import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { servedLanes } from '../../../src/queue/consumers.js';

/** A lane's workers and its waiting jobs, as the engine would count them; `looks` counts the CLIENT LIST asks. */
function lane(workers: number, waiting: number) {
  const state = { workers, waiting, looks: 0 };
  const engine = {
    consumers: async () => {
      state.looks++;
      return state.workers;
    },
    counts: async () => ({ waiting: state.waiting, delayed: 0, active: 0, failed: 0 }),
  };
  return { state, served: servedLanes(engine, 5_000) };
}

describe('servedLanes: whether a worker takes the work the web queues', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a lane remembered as served whose last worker left: everyone queued meanwhile is told, after one look', async () => {
    const { state, served } = lane(1, 0);
    expect(await served('agent')).toBe(true);
    state.workers = 0;
    state.waiting = 2;
    const told: string[] = [];
    expect(await served('agent', async () => void told.push('first'))).toBe(true);
    expect(await served('agent', async () => void told.push('second'))).toBe(true);
    expect(told).toEqual([]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual(['first', 'second']);
    expect(state.looks).toBe(2);
    // Not remembered as served any more: the next one is told at once.
    expect(await served('agent', async () => void told.push('third'))).toBe(false);
  });

  it('nobody is told when a worker is still there, or when the work no longer waits', async () => {
    const { state, served } = lane(1, 1);
    const told: string[] = [];
    await served('agent');
    await served('agent', async () => void told.push('worker still there'));
    await vi.advanceTimersByTimeAsync(5_000);
    state.workers = 0;
    state.waiting = 0; // the last worker took the work before it left
    await served('agent', async () => void told.push('work taken'));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(told).toEqual([]);
  });
});
