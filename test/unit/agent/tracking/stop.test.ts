import { describe, expect, it, vi } from 'vitest';
import { type StopDeps, toldWhenStopped } from '../../../../src/agent/tracking/stop.js';
import type { JobMeta } from '../../../../src/queue/engine.js';
import { captureLogs } from '../../../support/logs.js';

describe('toldWhenStopped', () => {
  const lane = { name: 'polls', concurrency: 1, attempts: 2, backoff: { type: 'fixed', delayMs: 0 } } as const;
  const data = { workspace: { teamId: 'T1' }, project: 'proj_a', jobId: 'job-1', round: 0 };
  const meta = (attempt: number, aborted = false): JobMeta => {
    const controller = new AbortController();
    if (aborted) controller.abort();
    return { id: 'poll/proj_a/job-1/0', lane: 'polls', attempt, signal: controller.signal };
  };
  const failing = () => Promise.reject(new Error('ERR refused'));

  function setUp(depsOf: () => Promise<StopDeps>) {
    const logs = captureLogs();
    const processor = toldWhenStopped(lane, failing, { log: logs.log, depsOf });
    return { logs, processor };
  }

  it('leaves a try that is not the last, or a run handed back, to the engine', async () => {
    const depsOf = vi.fn(() => Promise.reject(new Error('not asked')));
    const { processor } = setUp(depsOf);
    await expect(processor(data, meta(1))).rejects.toThrow('ERR refused');
    await expect(processor(data, meta(2, true))).rejects.toThrow('ERR refused');
    expect(depsOf).not.toHaveBeenCalled();
  });

  it('on the last try, a stop that fails too is logged naming the job, and the step still fails with its error', async () => {
    const { logs, processor } = setUp(() => Promise.reject(new Error('workspace lookup failed')));
    await expect(processor(data, meta(2))).rejects.toThrow('ERR refused');
    expect(logs.text()).toContain('"event":"tracking.stop_failed"');
    expect(logs.text()).toContain('"job_id":"job-1"');
  });
});
