import { describe, expect, it } from 'vitest';
import { adoptTrackedJobs } from '../../src/workers.js';
import { jobBinding } from '../fixtures/job.js';
import { useAgentUnit } from './agent/support.js';

describe('adoptTrackedJobs: what the previous release tracked is taken over at start', () => {
  const unit = useAgentUnit();

  it('adds a poll for every job still in its project’s active index, none for ended ones, once per claim', async () => {
    const { deps } = unit();
    const now = deps.now();
    for (const jobId of ['job_a', 'job_b', 'job_done']) {
      await deps.store.jobs.create(jobBinding({ jobId, threadTs: `1.${jobId}` }), { status: 'active' }, now);
    }
    await deps.store.jobs.endRound({ project: 'proj_test', jobId: 'job_done' }, 0, 'failed');
    expect(await adoptTrackedJobs(deps)).toBe(2);
    expect(unit().tracked).toEqual([
      { project: 'proj_test', jobId: 'job_a' },
      { project: 'proj_test', jobId: 'job_b' },
    ]);
    expect(await adoptTrackedJobs(deps)).toBe(0); // another instance (or a restart within the minute) finds it done
  });
});
